// Drives the console's Templates section (web/console/templates.js) in
// Debian's headless Chromium (page_browser.js) and prints what it saw as one
// JSON object; test_console_templates.py sets the site up and asserts.
//
// usage: node console_templates_browser.js PAGE OUT_DIR ARGS_JSON
//   ARGS_JSON: {owner, ownerSecret, viewer, viewerSecret, password, templateId, content}
//
// By keyboard at 1280 px: the owner signs in (password, TOTP), opens the
// template, fills the sample data and edits the HTML (the preview follows),
// tries markup in the sample data and a script in the content, saves, sends a
// test to themselves, meets a save by someone else (asked of the test: one
// line {"need":"concurrent-save"} out, one line in), compares two versions and
// rolls back; meets the end of the sign-in mid-edit (asked of the test:
// "end-sessions"). Then creates a template (a bad event said under its
// field), a locale variant of it (the locale taken said under its field
// first), and deletes the variant with its event typed (a wrong one said
// under the field first). At 390 px: the list, the editor and the new
// template's form. Then a viewer. axe-core runs on each page at both
// widths; a dialog (alert) opening is counted.
'use strict';

const { runInChromium, type, press } = require('./page_browser');
const { waitText, backTab, setWidth, axe: runAxe, go: goTo, signInTotp, reauthShown, signInAgain, ask, pageState,
  driverArgs } = require('./console_helpers');

const { pageUrl, outDir, args } = driverArgs();

async function state(page) {
  return pageState(page, (texts) => {
    const $ = (id) => document.getElementById(id);
    const frame = $('tpl-preview-html');
    return {
      hash: location.hash,
      h1: texts('#view h1'),
      rows: texts('#view .rows li'),
      status: texts('#view .status'),
      errors: texts('.error'),
      viewButtons: texts('#view button'),
      nav: texts('#nav a'),
      placeholders: texts('#tpl-placeholders li'),
      previewSubject: $('tpl-preview-subject') ? $('tpl-preview-subject').textContent : '',
      previewText: $('tpl-preview-text') ? $('tpl-preview-text').textContent : '',
      srcdoc: frame ? frame.srcdoc : '',
      sandbox: frame ? frame.getAttribute('sandbox') : null,
      frameDocument: frame ? frame.contentDocument !== null : null,
      subject: $('tpl-subject') ? $('tpl-subject').value : '',
      content: $('tpl-content') ? $('tpl-content').value : '',
      diff: texts('#tpl-diff pre del, #tpl-diff pre ins'),
      diffSummary: $('tpl-diff-summary') ? $('tpl-diff-summary').textContent : '',
      focused: document.activeElement ? (document.activeElement.id || document.activeElement.textContent) : '',
      dialogOpen: $('reauth').open,
      where: $('template-where') ? $('template-where').textContent : '',
      newEvent: $('tpl-new-event') ? $('tpl-new-event').value : null,
      newSubject: $('tpl-new-subject') ? $('tpl-new-subject').value : null,
      links: texts('#view a').filter((t) => t === 'New template' || t === 'Add a locale variant'),
    };
  });
}

runInChromium(outDir, async (page, out, shot) => {
  out.axe = {};
  out.widths = {};
  out.dialogs = [];
  page.on('dialog', async (d) => {
    out.dialogs.push(d.type() + ': ' + d.message());
    await d.dismiss();
  });
  const axe = (name) => runAxe(page, out, name);
  const width = (w) => setWidth(page, w);
  const go = (hash, ready) => goTo(page, hash, ready);
  const signIn = (email, secret, offset) => signInTotp(page, email, args.password, secret, offset);
  const previewHas = (wanted) => page.waitForFunction((w) =>
    (document.getElementById('tpl-preview-text') || {}).textContent.includes(w), {}, wanted);
  const editor = '#templates/' + args.templateId;
  const pages = {
    templates: ['#templates', () => document.querySelectorAll('#templates-list li').length > 0],
    template: [editor, () => !!document.getElementById('tpl-preview-text') &&
      document.getElementById('tpl-preview-text').textContent !== '' &&
      document.querySelectorAll('#tpl-versions li').length > 0],
  };

  await width(1280);
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  await signIn(args.owner, args.ownerSecret, 0);
  out.states.signedIn = await state(page);
  await go(...pages.templates);
  out.states.list = await state(page);
  await axe('templates-1280');
  await shot('console-templates-1280');

  // The editor: the saved text previewed, its placeholders each with a field.
  await go(...pages.template);
  out.states.opened = await state(page);
  await type(page, 'sample-name', 'Grace');
  await previewHas('Dear Grace');
  out.states.sampled = await state(page);
  // The HTML edited: the preview follows, a new placeholder gets its field.
  await type(page, 'tpl-content', args.content);
  await page.waitForSelector('#sample-order');
  await type(page, 'sample-order', 'A-17');
  await previewHas('A-17');
  out.states.edited = await state(page);
  await axe('template-1280');
  await shot('console-template-1280');

  // Markup in the sample data is text of the mail; nothing runs.
  await type(page, 'sample-name', '<img src=x onerror=alert(1)><script>alert(2)</script>');
  await previewHas('<script>alert(2)</script>');
  out.states.markupSample = await state(page);
  // A script in the content: refused by the API, the error under the field.
  await type(page, 'tpl-content', '<p>[name]</p><script>alert(3)</script>');
  await page.waitForFunction(() => !document.getElementById('tpl-content-error').hidden);
  out.states.scriptContent = await state(page);
  await type(page, 'tpl-content', args.content);
  await type(page, 'sample-name', 'Grace');
  await previewHas('Dear Grace');
  await page.waitForFunction(() => document.getElementById('tpl-content-error').hidden);

  // Save, then a test to the owner's own address.
  await press(page, '#tpl-save');
  await waitText(page, 'tpl-save-status', 'Saved as version');
  out.states.saved = await state(page);
  await press(page, '#tpl-test-send');
  await waitText(page, 'tpl-test-status', 'on its way');
  out.states.testSent = await state(page);

  // Someone else saves meanwhile: this save is refused, the text stays.
  await ask('concurrent-save');
  await type(page, 'tpl-subject', 'Mine [name]');
  await press(page, '#tpl-save');
  await waitText(page, 'tpl-save-status', 'Someone else saved');
  out.states.conflict = await state(page);

  // Reload the editor: versions, a diff of the first and the newest, roll back to 1.
  await go('#templates', () => document.querySelectorAll('#templates-list li').length > 0);
  await go(...pages.template);
  await page.select('#diff-from', '1');
  await press(page, '#diff-show');
  await page.waitForSelector('#tpl-diff-summary');
  out.states.diff = await state(page);
  await axe('template-versions-1280');
  await press(page, '#tpl-versions button[aria-label="Roll back to version 1"]');
  out.rollbackFocus = await page.evaluate(() => document.activeElement.textContent);
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'tpl-versions-status', 'is the newest again');
  await previewHas('order received.');
  out.states.rolledBack = await state(page);

  // The sign-in ends mid-edit (the test ends the owner's sessions): the
  // save asks to sign in again over the page; the unsaved text stays and
  // the save goes on after it. The preview the typing asks for is held on
  // its way until then: sent with the ended sign-in's token, its 401 is
  // answered by sending it again, not by a second dialog.
  let releaseHeld = null;
  const previewHeld = new Promise((resolve) => { releaseHeld = resolve; });
  let held = null;
  out.previewReplies = [];
  const hold = (r) => {
    if (!held && r.method() === 'POST' && r.url().endsWith('/preview')) {
      held = r;
      releaseHeld();
    } else {
      r.continue();
    }
  };
  const onPreviewReply = (r) => { if (r.url().endsWith('/preview')) out.previewReplies.push(r.status()); };
  page.on('request', hold);
  page.on('response', onPreviewReply);
  await page.setRequestInterception(true);
  await type(page, 'tpl-subject', 'Expired [name]');
  await ask('end-sessions');
  await press(page, '#tpl-save');
  await reauthShown(page);
  out.states.reauth = await state(page);
  await previewHeld;
  await signInAgain(page, args.password, args.ownerSecret, 30);
  await waitText(page, 'tpl-save-status', 'Saved as version');
  // The dialog closes as the retried save goes out; its reply may come first.
  await page.waitForFunction(() => !document.getElementById('reauth').open);
  out.states.afterReauth = await state(page);
  await held.continue();
  await page.waitForFunction(() => document.getElementById('tpl-preview-subject').textContent.startsWith('Expired'));
  out.states.afterHeldPreview = await state(page);
  await page.setRequestInterception(false);
  page.off('request', hold);
  page.off('response', onPreviewReply);

  // A new template: a bad event is said under its field, then it is made.
  await go(...pages.templates);
  await press(page, '#templates-new');
  await page.waitForSelector('#tpl-new-event');
  await type(page, 'tpl-new-event', 'welcome back!');
  await type(page, 'tpl-new-subject', 'Welcome back [name]');
  await type(page, 'tpl-new-content', '<p>Welcome back, [name].</p>');
  await press(page, '#tpl-create');
  await page.waitForFunction(() => !document.getElementById('tpl-new-event-error').hidden);
  out.states.createBad = await state(page);
  await axe('template-new-1280');
  await shot('console-template-new-1280');
  await type(page, 'tpl-new-event', 'welcome-back');
  await page.keyboard.press('Enter');
  await waitText(page, 'tpl-save-status', 'Created as version 1.');
  await page.waitForFunction(() => !!document.getElementById('tpl-variant'));
  out.states.created = await state(page);
  // Its locale variant: the form starts from its event and text; the
  // default locale is taken (said under the locale), "fr" is made.
  await press(page, '#tpl-variant');
  await page.waitForFunction(() => !!document.getElementById('tpl-new-event') &&
    document.getElementById('tpl-new-event').value === 'welcome-back');
  out.states.variantForm = await state(page);
  await press(page, '#tpl-create');
  await page.waitForFunction(() => !document.getElementById('tpl-new-locale-error').hidden);
  out.states.variantTaken = await state(page);
  await type(page, 'tpl-new-locale', 'fr');
  await page.keyboard.press('Enter');
  await waitText(page, 'template-where', 'locale fr');
  await waitText(page, 'tpl-save-status', 'Created as version 1.');
  out.states.variant = await state(page);
  // Delete the variant: the event typed; a wrong one first.
  await press(page, '#tpl-delete');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'tpl-delete-confirm');
  await page.keyboard.type('welcome');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.getElementById('tpl-delete-confirm-error').hidden);
  out.states.deleteWrong = await state(page);
  await axe('template-delete-1280');
  await type(page, 'tpl-delete-confirm', 'welcome-back');
  await page.keyboard.press('Enter');
  await waitText(page, 'templates-status', 'is deleted');
  out.states.deleted = await state(page);

  await width(390);
  await go('#templates/new', () => !!document.getElementById('tpl-new-event'));
  out.widths['template-new-390'] = await state(page);
  await axe('template-new-390');
  for (const name of ['templates', 'template']) {
    await go(...pages[name === 'template' ? 'templates' : 'template']);
    await go(...pages[name]);
    out.widths[name + '-390'] = await state(page);
    await axe(name + '-390');
    await shot('console-' + name + '-390');
  }
  await width(1280);
  for (const name of ['templates', 'template']) {
    await go(...pages[name === 'template' ? 'templates' : 'template']);
    await go(...pages[name]);
    out.widths[name + '-1280'] = await state(page);
  }

  // A viewer: previews, sees no write button.
  await press(page, '#sign-out');
  await signIn(args.viewer, args.viewerSecret, -30);
  await go(...pages.templates);
  out.states.viewerList = await state(page);
  await go(...pages.template);
  out.states.viewerTemplate = await state(page);
  await axe('viewer-template-1280');
  await width(390);
  out.states.viewerTemplate390 = await state(page);
  await axe('viewer-template-390');
});
