// Drives the console's Settings and Sign-in sections (web/console/settings.js,
// clients.js) in Debian's headless Chromium and prints what it saw as one
// JSON object; test_console_settings.py sets the site up and asserts.
//
// usage: node console_settings_browser.js PAGE OUT_DIR ARGS_JSON
//   ARGS_JSON: {owner, ownerSecret, viewer, viewerSecret, password, hook, otherHook, issuer}
//
// By keyboard at 1280 px: the owner turns e-mail off and saves (asked of the
// test: one line {"need":"email-off"} out, one line in), back on; a bad reset
// URL is said under its field; registers an OAuth client (its secret shown
// once). Adds upstream providers: an OpenID Connect one whose discovery
// fails (said under the issuer), the same by the discovery URL of `issuer`,
// Google (a preset); removes Google after a confirmation. Adds two
// webhooks, disables one; the test queues deliveries ("deliveries"): the
// first page, "Older deliveries", one endpoint's. The test gives a token of
// the owner's whose sign-in is 11 minutes old ("stale-token"), sent in
// place of the page's on the first new-secret request: the page asks for a
// sign-in of the last 10 minutes over itself, keeps the pending change and
// makes it once signed in (the new secret shown once). At 390 px: the
// three pages. Then a viewer. axe-core on each page.
'use strict';

const { runInChromium, type, press } = require('./page_browser');
const { waitText, backTab, setWidth, axe: runAxe, go: goTo, signInTotp, reauthShown, signInAgain, ask, pageState,
  driverArgs } = require('./console_helpers');

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
      providers: texts('#providers-list li'),
      callback: $('provider-callback') ? $('provider-callback').textContent : '',
      secretField: $('provider-client-secret') ? $('provider-client-secret').type : null,
      issuerError: $('provider-issuer-error') && !$('provider-issuer-error').hidden ? $('provider-issuer-error').textContent : '',
      deliveries: texts('#deliveries-list li').length,
      older: visible($('deliveries-older')),
      dialogOpen: $('reauth').open,
      dialogWhy: $('reauth').open ? $('reauth-why').textContent : '',
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
      document.getElementById('clients-issuer').textContent !== '' &&
      (document.querySelectorAll('#providers-list li').length > 0 ||
       document.getElementById('providers-status').textContent !== '')],
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

  // Upstream providers: discovery that fails is said under the issuer;
  // then the same by its discovery URL, and Google (a preset).
  await page.select('#provider-kind', 'oidc');
  await type(page, 'provider-name', 'corp');
  await type(page, 'provider-issuer', 'http://127.0.0.1:9/none');
  await type(page, 'provider-client-id', 'corp-client');
  await type(page, 'provider-client-secret', 'corp-secret-never-shown');
  await press(page, '#provider-add');
  await page.waitForFunction(() => !document.getElementById('provider-issuer-error').hidden);
  out.states.providerBad = await state(page);
  await type(page, 'provider-issuer', args.issuer + '/.well-known/openid-configuration');
  await page.focus('#provider-trust-email');
  await page.keyboard.press('Space');
  await press(page, '#provider-add');
  await page.waitForSelector('#provider-callback');
  out.states.providerMade = await state(page);
  await page.select('#provider-kind', 'google');
  await type(page, 'provider-client-id', '1234.apps.googleusercontent.com');
  await type(page, 'provider-client-secret', 'GOCSPX-never-shown');
  await press(page, '#provider-add');
  await waitText(page, 'provider-add-status', 'google is added');
  await page.waitForFunction(() => document.querySelectorAll('#providers-list li').length === 2);
  out.states.google = await state(page);
  await axe('sign-in-1280');
  await shot('console-sign-in-1280');
  // Remove Google: the focus goes to Cancel; Shift+Tab and Enter confirm.
  await press(page, '#providers-list button[aria-label="Remove google"]');
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'providers-status', 'google is removed');
  out.states.providerRemoved = await state(page);
  // Apple: a team and key id and the .p8 key in place of a client secret;
  // first a key that is not one, refused next to the key's field.
  await page.select('#provider-kind', 'apple');
  out.states.appleForm = await page.evaluate(() => ({
    secretHidden: document.getElementById('provider-client-secret').closest('.field').hidden,
    keyShown: !document.getElementById('provider-key-p8').closest('.field').hidden,
  }));
  await type(page, 'provider-client-id', 'com.example.web');
  await type(page, 'provider-team-id', 'TEAM123456');
  await type(page, 'provider-key-id', 'KEY9876543');
  await type(page, 'provider-key-p8', 'not a key');
  await press(page, '#provider-add');
  await page.waitForFunction(() => !document.getElementById('provider-key-p8-error').hidden);
  out.states.appleBadKey = await page.evaluate(() => ({
    error: document.getElementById('provider-key-p8-error').textContent,
    focused: document.activeElement && document.activeElement.id,
  }));
  await page.$eval('#provider-key-p8', (el) => { el.value = ''; });
  await type(page, 'provider-key-p8', args.appleKey);
  await press(page, '#provider-add');
  await waitText(page, 'provider-add-status', 'apple is added');
  await page.waitForFunction(() => document.querySelectorAll('#providers-list li').length === 2);
  out.states.apple = await state(page);
  await press(page, '#providers-list button[aria-label="Remove apple"]');
  await backTab(page);
  await page.keyboard.press('Enter');
  await waitText(page, 'providers-status', 'apple is removed');

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
  await type(page, 'webhook-url', args.otherHook);
  await type(page, 'webhook-events', 'user.created');
  await press(page, '#webhook-add');
  await waitText(page, 'webhook-add-status', args.otherHook + ' is added');
  out.states.otherHookMade = await state(page);

  // Deliveries (queued by the test): a page, the older ones, one endpoint's.
  const deliveries = (n) => page.waitForFunction((k) => document.querySelectorAll('#deliveries-list li').length === k &&
    !document.getElementById('deliveries-older').disabled, {}, n);
  const counts = JSON.parse(await ask('deliveries'));
  await go('#audit', () => !!document.getElementById('audit-list'));
  await go(pages.webhooks[0], () => document.querySelectorAll('#deliveries-list li').length > 0 &&
    document.querySelectorAll('#deliveries-endpoint option').length === 3);
  out.states.deliveriesFirst = await state(page);
  await press(page, '#deliveries-older');
  await deliveries(counts.all);
  await page.waitForFunction(() => document.activeElement === document.getElementById('deliveries-status'));
  out.states.deliveriesAll = await state(page);
  await page.select('#deliveries-endpoint', String(counts.otherId));
  await press(page, '#deliveries-show');
  await deliveries(counts.other);
  out.states.deliveriesOther = await state(page);
  await axe('webhooks-1280');
  await shot('console-webhooks-1280');

  // A new signing secret with a sign-in of 11 minutes ago: the first
  // request goes with the test's stale token (the page's own is fresh).
  const stale = await ask('stale-token');
  out.secretReplies = [];
  let swapped = false;
  const secretPath = `/webhooks/${counts.otherId}/secret`;
  const onRequest = (r) => {
    if (!swapped && r.method() === 'POST' && r.url().endsWith(secretPath)) {
      swapped = true;
      r.continue({ headers: Object.assign({}, r.headers(), { authorization: 'Bearer ' + stale }) });
    } else {
      r.continue();
    }
  };
  const onResponse = (r) => { if (r.url().endsWith(secretPath)) out.secretReplies.push(r.status()); };
  page.on('response', onResponse);
  page.on('request', onRequest);
  await page.setRequestInterception(true);
  await press(page, `#webhooks-list button[aria-label="New secret for ${args.otherHook}"]`);
  await backTab(page);
  await page.keyboard.press('Enter');
  await reauthShown(page);
  out.states.recentNeeded = await state(page);
  await axe('reauth-recent-1280');
  await shot('console-reauth-recent-1280');
  await signInAgain(page, args.password, args.ownerSecret, 30);
  await waitText(page, 'webhooks-status', 'has a new signing secret');
  await page.waitForFunction(() => !document.getElementById('reauth').open);
  out.states.rotated = await state(page);
  await page.setRequestInterception(false);
  page.off('request', onRequest);
  page.off('response', onResponse);

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
