// Drives the console's Mail section (web/console/mail.js) in Debian's
// headless Chromium and prints what it saw as one JSON object;
// test_console_mail.py sets the site up and asserts.
//
// usage: node console_mail_browser.js PAGE OUT_DIR ARGS_JSON
//   ARGS_JSON: {owner, ownerSecret, viewer, viewerSecret, password, event, failedId, suppressed}
//
// By keyboard at 1280 px: the owner signs in, filters the log to the
// event's Failed mail, opens it (its HTML in the sandboxed frame, its
// history) and resends it; removes a suppression; a bad date next to its
// field. At 390 px: the log and the mail. Then a viewer (asked of the test
// first: one line {"need":"ready"} out, one line in). axe-core on each page.
'use strict';

const { runInChromium, type, press } = require('./page_browser');
const { waitText, backTab, setWidth, axe: runAxe, go: goTo, signInTotp, ask, pageState, driverArgs } = require('./console_helpers');

const { pageUrl, outDir, args } = driverArgs();

async function state(page) {
  return pageState(page, (texts) => {
    const frame = document.getElementById('mail-html');
    return {
      h1: texts('#view h1'),
      rows: texts('#mail-list li'),
      history: texts('#mail-history li'),
      suppressions: texts('#suppressions li'),
      guard: texts('#bounce-guard dd'),
      facts: texts('#view .facts dd'),
      status: texts('#view .status'),
      errors: texts('.error'),
      viewButtons: texts('#view button'),
      nav: texts('#nav a'),
      srcdoc: frame ? frame.srcdoc : '',
      sandbox: frame ? frame.getAttribute('sandbox') : null,
      text: (document.getElementById('mail-text') || {}).textContent || '',
    };
  });
}

runInChromium(outDir, async (page, out, shot) => {
  out.axe = {};
  out.widths = {};
  out.dialogs = [];
  page.on('dialog', async (d) => { out.dialogs.push(d.message()); await d.dismiss(); });
  const axe = (name) => runAxe(page, out, name);
  const width = (w) => setWidth(page, w);
  const go = (hash, ready) => goTo(page, hash, ready);
  const signIn = (email, secret, offset) => signInTotp(page, email, args.password, secret, offset);
  const pages = {
    mail: ['#mail', () => document.querySelectorAll('#mail-list li').length > 0 &&
      document.querySelectorAll('#bounce-guard dd').length > 0],
    message: ['#mail/' + args.failedId, () => document.querySelectorAll('#mail-history li').length > 0],
  };

  await width(1280);
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  await signIn(args.owner, args.ownerSecret, 0);
  out.states.signedIn = await state(page);
  await go(...pages.mail);
  out.states.log = await state(page);
  // A date the API refuses: its error under the field.
  await page.$eval('#mail-since', (e) => { e.type = 'text'; });
  await type(page, 'mail-since', 'yesterday');
  await press(page, '#mail-apply');
  await page.waitForFunction(() => !document.getElementById('mail-since-error').hidden);
  out.states.badDate = await state(page);
  await page.$eval('#mail-since', (e) => { e.value = ''; e.type = 'date'; });
  // Filter to the event's Failed mail.
  await page.select('#mail-status', 'Failed');
  await type(page, 'mail-event', args.event);
  await press(page, '#mail-apply');
  await page.waitForFunction(() => document.querySelectorAll('#mail-list li').length === 1);
  out.states.failed = await state(page);
  await axe('mail-1280');
  await shot('console-mail-1280');

  await press(page, '#mail-list li a');
  await page.waitForFunction(() => document.querySelectorAll('#mail-history li').length > 0);
  out.states.message = await state(page);
  await axe('mail-message-1280');
  await shot('console-mail-message-1280');
  await press(page, '#mail-resend');
  await waitText(page, 'mail-status-line', 'Back in the queue');
  out.states.resent = await state(page);

  // Remove a suppression (confirmed first).
  await go(...pages.mail);
  await press(page, `#suppressions button[aria-label="Remove ${args.suppressed}"]`);
  out.removeFocus = await page.evaluate(() => document.activeElement.textContent);
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'suppressions-status', 'again');
  out.states.unsuppressed = await state(page);

  await width(390);
  for (const name of ['mail', 'message']) {
    await go('#audit', () => !!document.getElementById('audit-list'));
    await go(...pages[name]);
    out.widths[name + '-390'] = await state(page);
    await axe(name + '-390');
    await shot('console-' + (name === 'mail' ? 'mail' : 'mail-message') + '-390');
  }

  await width(1280);
  await press(page, '#sign-out');
  await ask('ready');
  await signIn(args.viewer, args.viewerSecret, -30);
  await go(...pages.mail);
  out.states.viewerLog = await state(page);
  await go(...pages.message);
  out.states.viewerMessage = await state(page);
  await axe('viewer-mail-message-1280');
});
