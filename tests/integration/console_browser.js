// Drives the site console (/console/?site=N, web/console/) in Debian's
// headless Chromium (page_browser.js) and prints what it saw as one JSON
// object; test_console.py sets the site up and asserts.
//
// usage: node console_browser.js PAGE OUT_DIR ARGS_JSON
//   ARGS_JSON: {owner, ownerSecret, password, search, target, viewer, viewerSecret, noFactor}
//
// At 1280 px, by keyboard: the owner signs in with the password and a TOTP
// code (oathtool), types the start of the target's address, opens them,
// ends their sessions, disables and enables them; the Admins and Audit
// pages. At 390 px: every page again; then the owner ends their own
// sessions, the next call meets a 401 and the console asks to sign in again
// over the page, which stays. Then a viewer, signed in with an e-mailed
// code (asked of the test: one line {"need":"code"} out, the code in) and
// TOTP, sees no write button; an
// administrator without a second factor (sent to enrol one). axe-core (the
// pinned npm package) runs on every page at both widths.
'use strict';

const { runInChromium, type, press } = require('./page_browser');
const { totp, waitText, backTab, setWidth, axe: runAxe, ask } = require('./console_helpers');

const [pageUrl, outDir, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);

async function state(page) {
  return page.evaluate(() => {
    const $ = (id) => document.getElementById(id);
    const visible = (e) => !!e && !e.hidden && e.offsetParent !== null;
    const texts = (sel) => Array.from(document.querySelectorAll(sel)).filter(visible).map((e) => e.textContent.trim());
    return {
      hash: location.hash,
      url: location.href,
      site: visible($('site')) ? $('site-name').textContent : '',
      general: visible($('general')) ? $('general').textContent : '',
      h1: texts('#view h1, #refused h1'),
      rows: texts('#view .rows li'),
      facts: texts('#view .facts dd'),
      status: texts('#view .status'),
      errors: texts('.error'),
      viewButtons: texts('#view button'),
      nav: texts('#nav a'),
      current: texts('#nav a[aria-current="page"]'),
      refused: visible($('refused')) ? $('refused-text').textContent : '',
      enrolLink: visible($('enrol')) ? $('enrol-link').getAttribute('href') : '',
      dialogOpen: $('reauth').open,
      focused: document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : '',
      images: document.querySelectorAll('#view img').length,
      labels: Array.from(document.querySelectorAll('input, select')).filter(visible)
        .every((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      storage: localStorage.length + sessionStorage.length,
    };
  });
}

runInChromium(outDir, async (page, out, shot) => {
  out.axe = {};
  out.widths = {};
  // axe-core evaluated through the DevTools protocol (the page's policy
  // forbids an injected script tag); serious and critical violations only.
  const axe = (name) => runAxe(page, out, name);
  const width = (w) => setWidth(page, w);
  const go = async (hash, ready) => {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForFunction(ready);
  };
  // The sign-in form is shown with the focus on the address (after a
  // sign-out: once the sign-out's request has come back).
  const signInShown = () => page.waitForFunction(() =>
    !document.getElementById('signin-panel').hidden && !document.getElementById('signin').hidden &&
    document.activeElement.id === 'email' && !document.getElementById('email').value);
  const signIn = async (email, secret, offset) => {
    await signInShown();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(args.password);
    await page.keyboard.press('Enter');
    if (secret) {
      await page.waitForSelector('#mfa-form:not([hidden])');
      out.mfaFocus = await page.evaluate(() => document.activeElement.id);
      await page.keyboard.type(totp(secret, offset));
      await page.keyboard.press('Enter');
    }
  };
  const pages = {
    users: ['#users', () => document.querySelectorAll('#users-list li').length > 0],
    user: ['#users/' + args.targetId, () => !!document.querySelector('#user-sessions')],
    admins: ['#admins', () => document.querySelectorAll('#admins-list li').length > 0],
    audit: ['#audit', () => document.querySelectorAll('#audit-list li').length > 0],
  };

  // --- the owner at 1280 px ---------------------------------------------------
  await width(1280);
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  await page.waitForFunction(() => !document.getElementById('site').hidden);
  // What the first load transferred (the page, its styles and scripts, the site's name).
  out.firstLoadBytes = await page.evaluate(() =>
    performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
      .reduce((sum, e) => sum + e.transferSize, 0));
  out.states.loaded = await state(page);
  out.states.loaded.focusedAtLoad = out.states.loaded.focused;
  await axe('signin-1280');
  await shot('console-signin-1280');

  await signIn(args.owner, args.ownerSecret, -30);
  await page.waitForFunction(() => document.querySelectorAll('#users-list li').length > 0);
  out.states.signedIn = await state(page);

  // Find the target by typing the start of the address (debounced search).
  await page.focus('#user-search');
  await page.keyboard.type(args.search);
  await page.waitForFunction((t) => {
    const rows = Array.from(document.querySelectorAll('#users-list li'));
    return rows.length === 1 && rows[0].textContent.includes(t);
  }, {}, args.target);
  out.states.found = await state(page);
  await axe('users-1280');
  await shot('console-users-1280');
  // Open it with the keyboard: Tab from the search field reaches the link.
  await page.keyboard.press('Tab');
  out.linkFocused = await page.evaluate(() => document.activeElement.textContent);
  await page.keyboard.press('Enter');
  await page.waitForFunction((t) => {
    const h = document.querySelector('#view h1');
    return h && h.textContent === t && document.querySelector('#user-sessions');
  }, {}, args.target);
  out.states.user = await state(page);
  await axe('user-1280');
  await shot('console-user-1280');

  // End the sessions: a confirmation first, the focus on Cancel.
  await press(page, '#user-end-sessions');
  out.confirmFocus = await page.evaluate(() => document.activeElement.textContent);
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'user-status', 'Ended');
  out.states.ended = await state(page);

  await press(page, '#user-toggle');
  await waitText(page, 'user-status', 'Disabled');
  out.states.disabled = await state(page);
  await press(page, '#user-toggle');
  await waitText(page, 'user-status', 'Enabled');
  out.states.enabled = await state(page);
  await press(page, '#user-password-reset');
  await waitText(page, 'user-status', 'on its way');
  out.states.resetSent = await state(page);

  // A user who lost their phone: the second factor removed, confirmed first.
  await go('#users/' + args.lostId, () => !!document.getElementById('user-mfa-reset'));
  await press(page, '#user-mfa-reset');
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'user-status', 'second factor is removed');
  out.states.mfaReset = await state(page);

  // Invite a user, open them from the reply, delete them (the address typed).
  await go(...pages.users);
  await type(page, 'invite-email', args.invitee);
  await type(page, 'invite-first', 'Ivy');
  await press(page, '#invite-submit');
  await waitText(page, 'invite-status', 'on its way');
  out.states.invited = await state(page);
  await press(page, '#invite-status a');
  await page.waitForFunction((t) => (document.querySelector('#view h1') || {}).textContent === t, {}, args.invitee);
  out.states.invitee = await state(page);
  await press(page, '#user-delete');
  out.deleteFocus = await page.evaluate(() => document.activeElement.id);
  await page.keyboard.type('not the address');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.getElementById('delete-confirm-error').hidden);
  out.states.deleteWrong = await state(page);
  await axe('user-delete-1280');
  await shot('console-user-delete-1280');
  await type(page, 'delete-confirm', args.invitee);
  await page.keyboard.press('Enter');
  await waitText(page, 'users-status', 'is deleted');
  out.states.deleted = await state(page);

  await go(...pages.admins);
  out.states.admins = await state(page);
  // An address that names no user: the error under the field.
  await type(page, 'admin-email', 'nobody-' + Date.now() + '@example.com');
  await press(page, '#admin-add');
  await page.waitForFunction(() => !document.getElementById('admin-email-error').hidden);
  out.states.adminMissing = await state(page);
  await axe('admins-1280');
  await shot('console-admins-1280');
  // Grant the target a role, then take it away after the confirmation.
  await type(page, 'admin-email', args.target);
  await page.select('#admin-role', 'admin');
  await press(page, '#admin-add');
  await waitText(page, 'admin-add-status', 'is now admin');
  await page.waitForFunction((t) => document.getElementById('admins-list').textContent.includes(t), {}, args.target);
  out.states.adminAdded = await state(page);
  await press(page, `#admins-list button[aria-label="Remove ${args.target}"]`);
  out.removeFocus = await page.evaluate(() => document.activeElement.textContent);
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'admins-status', 'is no longer an administrator');
  out.states.adminRemoved = await state(page);
  await go(...pages.audit);
  out.states.audit = await state(page);
  await axe('audit-1280');
  await shot('console-audit-1280');
  // The first Tab reaches the skip link, which moves the focus to the heading.
  await page.evaluate(() => { document.activeElement.blur(); window.scrollTo(0, 0); });
  await page.keyboard.press('Tab');
  out.skip = { first: await page.evaluate(() => document.activeElement.id) };
  await page.keyboard.press('Enter');
  Object.assign(out.skip, await page.evaluate(() => ({ focused: document.activeElement.textContent, hash: location.hash })));

  // --- every page at 390 px ---------------------------------------------------
  await width(390);
  for (const name of ['users', 'user', 'admins', 'audit']) {
    await go(...pages[name]);
    out.widths[name + '-390'] = await state(page);
    await axe(name + '-390');
    await shot('console-' + name + '-390');
  }
  // Back at 1280, the other pages' overflow and labels too.
  await width(1280);
  for (const name of ['users', 'user', 'admins', 'audit']) {
    await go(...pages[name]);
    out.widths[name + '-1280'] = await state(page);
  }

  // --- the sign-in ends mid-session ----------------------------------------------
  // The owner ends their own sessions: the DELETE succeeds, the page's next
  // call meets a 401, and the sign-in dialog opens over the page.
  await width(390);
  await go('#users/' + args.ownerId, () => !!document.querySelector('#user-sessions'));
  await press(page, '#user-end-sessions');
  await backTab(page);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('reauth').open);
  await page.waitForFunction(() => !document.getElementById('signin').hidden);
  out.states.reauth = await state(page);
  out.states.reauth.email = await page.$eval('#email', (e) => e.value);
  await axe('reauth-390');
  await shot('console-reauth-390');
  await page.keyboard.type(args.password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mfa-form:not([hidden])');
  await page.keyboard.type(totp(args.ownerSecret, 0));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.getElementById('reauth').open);
  await waitText(page, 'user-status', 'Ended');
  out.states.afterReauth = await state(page);

  // --- a viewer -------------------------------------------------------------------
  await width(1280);
  // The viewer signs in with an e-mailed code, then the TOTP code.
  await press(page, '#sign-out');
  await signInShown();
  await page.keyboard.type(args.viewer);
  await press(page, '#signin-code');
  await page.waitForSelector('#code-form:not([hidden])');
  out.codeFocus = await page.evaluate(() => document.activeElement.id);
  await page.keyboard.type(await ask('code'));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mfa-form:not([hidden])');
  await page.keyboard.type(totp(args.viewerSecret, -30));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#users-list li').length > 0);
  out.states.viewerUsers = await state(page);
  await go(...pages.user);
  out.states.viewerUser = await state(page);
  await axe('viewer-user-1280');
  await shot('console-viewer-user-1280');
  await go(...pages.admins);
  out.states.viewerAdmins = await state(page);
  await width(390);
  await go(...pages.user);
  out.states.viewerUser390 = await state(page);
  await axe('viewer-user-390');

  // --- an administrator without a second factor ------------------------------------
  await width(1280);
  await press(page, '#sign-out');
  await signIn(args.noFactor, null, 0);
  await page.waitForSelector('#refused:not([hidden])');
  out.states.noFactor = await state(page);
  await axe('second-factor-1280');
  await shot('console-second-factor-1280');
  await width(390);
  out.states.noFactor390 = await state(page);
  await axe('second-factor-390');

  // No site, or a site this server does not have: said, and no sign-in.
  for (const [name, url] of [['noSite', pageUrl.split('?')[0]], ['unknownSite', pageUrl.split('?')[0] + '?site=987654321']]) {
    await page.goto(url, { waitUntil: 'networkidle0' });
    await page.waitForFunction(() => !document.getElementById('general').hidden);
    out.states[name] = await state(page);
    out.states[name].signInShown = await page.evaluate(() => !document.getElementById('signin-panel').hidden);
  }
});
