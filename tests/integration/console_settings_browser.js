// Drives the console's Settings and Sign-in sections (web/console/settings.js,
// clients.js) in Debian's headless Chromium and prints what it saw as one
// JSON object; test_console_settings.py sets the site up and asserts.
//
// usage: node console_settings_browser.js PAGE OUT_DIR ARGS_JSON
//   ARGS_JSON: {owner, ownerSecret, viewer, viewerSecret, password}
//
// By keyboard at 1280 px: the owner turns e-mail off and saves (asked of the
// test: one line {"need":"email-off"} out, one line in), back on; a bad reset
// URL is said under its field; registers an OAuth client (its secret shown
// once). At 390 px: both pages. Then a viewer. axe-core on each page.
'use strict';

const { runInChromium, type, press } = require('./page_browser');
const { waitText, setWidth, axe: runAxe, go: goTo, signInTotp, ask, pageState, driverArgs } = require('./console_helpers');

const { pageUrl, outDir, args } = driverArgs();

async function state(page) {
  return pageState(page, (texts, visible) => {
    const $ = (id) => document.getElementById(id);
    return {
      h1: texts('#view h1'),
      rows: texts('#clients-list li'),
      hooks: texts('#webhooks-list li'),
      hookSecret: $('webhook-secret') ? $('webhook-secret').textContent : '',
      status: texts('#view .status'),
      errors: texts('.error'),
      viewButtons: texts('#view button'),
      nav: texts('#nav a'),
      emailOff: $('set-disable-email') ? $('set-disable-email').checked : null,
      secret: $('client-secret') ? $('client-secret').textContent : '',
      secretShown: visible($('client-secret-box')),
      focused: document.activeElement ? document.activeElement.id : '',
    };
  });
}

runInChromium(outDir, async (page, out, shot) => {
  out.axe = {};
  out.widths = {};
  const axe = (name) => runAxe(page, out, name);
  const width = (w) => setWidth(page, w);
  const go = (hash, ready) => goTo(page, hash, ready);
  const signIn = (email, secret, offset) => signInTotp(page, email, args.password, secret, offset);
  const pages = {
    settings: ['#settings', () => !!document.getElementById('set-name') && document.getElementById('set-name').value !== ''],
    webhooks: ['#webhooks', () => !!document.getElementById('deliveries-status') &&
      (document.querySelectorAll('#webhooks-list li').length > 0 ||
       document.getElementById('webhooks-status').textContent !== '')],
    clients: ['#sign-in', () => document.getElementById('clients-issuer') &&
      document.getElementById('clients-issuer').textContent !== ''],
  };

  await width(1280);
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  await signIn(args.owner, args.ownerSecret, 0);
  out.states.signedIn = await state(page);
  await go(...pages.settings);
  out.states.settings = await state(page);
  await axe('settings-1280');
  await shot('console-settings-1280');

  // E-mail off (Space on the focused box), saved; then on again.
  await page.focus('#set-disable-email');
  await page.keyboard.press('Space');
  await press(page, '#settings-save');
  await waitText(page, 'settings-status', 'Saved');
  out.states.emailOff = await state(page);
  await ask('email-off');
  await page.focus('#set-disable-email');
  await page.keyboard.press('Space');
  await press(page, '#settings-save');
  await page.waitForFunction(() => !document.getElementById('set-disable-email').checked &&
    document.getElementById('settings-status').textContent.includes('Saved'));
  out.states.emailOn = await state(page);
  // A reset URL that is not absolute: the error under its field.
  await type(page, 'set-reset-urls', 'not a url');
  await press(page, '#settings-save');
  await page.waitForFunction(() => !document.getElementById('set-reset-urls-error').hidden);
  out.states.badUrl = await state(page);
  await axe('settings-error-1280');

  // Register a confidential client: its secret shown once.
  await go(...pages.clients);
  await type(page, 'client-name', 'Shop app <b>');
  await type(page, 'client-redirect-uris', 'https://shop.example/callback');
  await press(page, '#client-add');
  await page.waitForSelector('#client-secret');
  out.states.clientMade = await state(page);
  await axe('sign-in-1280');
  await shot('console-sign-in-1280');

  // A webhook: a URL refused next to its field, then one added (the
  // secret shown once) and disabled.
  await go(...pages.webhooks);
  await type(page, 'webhook-url', 'https://');
  await type(page, 'webhook-events', 'user.created');
  await press(page, '#webhook-add');
  await page.waitForFunction(() => !document.getElementById('webhook-url-error').hidden);
  out.states.hookBad = await state(page);
  await type(page, 'webhook-url', args.hook);
  await type(page, 'webhook-events', 'user.created, user.disabled');
  await press(page, '#webhook-add');
  await page.waitForSelector('#webhook-secret');
  out.states.hookMade = await state(page);
  await press(page, `#webhooks-list button[aria-label="Disable ${args.hook}"]`);
  await waitText(page, 'webhooks-status', 'is disabled');
  out.states.hookDisabled = await state(page);
  await axe('webhooks-1280');
  await shot('console-webhooks-1280');

  await width(390);
  for (const name of ['settings', 'clients', 'webhooks']) {
    await go('#audit', () => !!document.getElementById('audit-list'));
    await go(...pages[name]);
    out.widths[name + '-390'] = await state(page);
    await axe(name + '-390');
    await shot('console-' + (name === 'clients' ? 'sign-in' : name) + '-390');
  }

  await width(1280);
  await press(page, '#sign-out');
  await signIn(args.viewer, args.viewerSecret, -30);
  await go(...pages.settings);
  out.states.viewerSettings = await state(page);
  await axe('viewer-settings-1280');
  await go(...pages.clients);
  out.states.viewerClients = await state(page);
  await go(...pages.webhooks);
  out.states.viewerWebhooks = await state(page);
  await axe('viewer-webhooks-1280');
});
