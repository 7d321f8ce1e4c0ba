// Drives Debian's headless Chromium through two Apache mod_auth_openidc
// relying parties (apache_rp.py) and svc's hosted sign-in page; prints what
// it saw as one JSON line; test_oidc_apache.py asserts.
//
// usage: node oidc_apache_browser.js CONFIG_JSON
//   CONFIG_JSON {"svc": "http://localhost:PORT", "apps": [ORIGIN1, ORIGIN2],
//                "logout": app 1's mod_auth_openidc logout URL,
//                "password": {"email", "password"}, "totp": {"email", "password"},
//                "passkey": {"email", "accountToken"}, "emailCode": {"email"}}
// The TOTP code: when the second-factor page shows, the script prints one
// line {"need":"totp"} and reads the code from its stdin (the test computes
// it with oathtool); the e-mailed code likewise ({"need":"email-code"}, the
// test reads it from the SMTP sink).
//
// Each user signs in in a browser context of its own (its own cookies):
// (a) the password, then single sign-on into app 2 and the logout through
// app 1; (b) the password and TOTP; (c) a passkey of the virtual
// authenticator (registered first through /account/passkeys.js on svc's
// origin); (d) a code by e-mail, on a 390 px wide screen. Every top-level
// URL of every navigation is recorded.
'use strict';

const readline = require('readline');
const { launchChromium } = require('./chromium');

const config = JSON.parse(process.argv[2]);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));

async function authenticator(page) {
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
}

// What the page shows: the RP's JSON, or svc's page (its form fields).
async function seen(page) {
  return page.evaluate(() => {
    let json = null;
    try { json = JSON.parse(document.body.innerText); } catch (e) { /* a page */ }
    return {
      url: location.href,
      json,
      title: document.title,
      inputs: Array.from(document.querySelectorAll('input')).map((i) => i.name),
      alert: (document.querySelector('.alert:not([hidden])') || { textContent: '' }).textContent.trim(),
      links: Array.from(document.querySelectorAll('a')).map((a) => a.getAttribute('href')),
      width: window.innerWidth,
      overflow: document.documentElement.scrollWidth > window.innerWidth,
    };
  });
}

async function run() {
  const out = { steps: {}, consoleErrors: [] };
  const { browser, close } = await launchChromium();
  const contexts = [];
  const newPage = async () => {
    const context = await browser.createBrowserContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    page.on('console', (m) => { if (m.type() === 'error') out.consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => out.consoleErrors.push(String(e)));
    page.navigations = [];
    page.frameRequests = [];
    // Every request of a top-level navigation, redirects included (hops).
    page.on('request', (r) => {
      if (r.frame() && r.frame() !== page.mainFrame()) page.frameRequests.push(r.url());
      else if (r.isNavigationRequest()) page.navigations.push(r.url());
    });
    return page;
  };
  // Opens `url` and waits until the page shows the RP's JSON or svc's form.
  const open = async (page, url) => {
    page.navigations.length = 0;
    await page.goto(url, { waitUntil: 'load' });
    return { ...(await seen(page)), hops: [...page.navigations] };
  };
  const submitAndWait = async (page, selector) => {
    page.navigations.length = 0;
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    return { ...(await seen(page)), hops: [...page.navigations] };
  };
  const signInWithPassword = async (page, who) => {
    await page.type('#email', who.email);
    await page.type('#password', who.password);
    return submitAndWait(page, '#password-form button[type=submit]');
  };

  try {
    // (a) the password; app 2 by single sign-on; logout through app 1.
    const a = await newPage();
    out.steps.aSignInPage = await open(a, config.apps[0] + '/protected/');
    out.steps.aBack = await signInWithPassword(a, config.password);
    out.steps.aApp2 = await open(a, config.apps[1] + '/protected/');
    a.frameRequests.length = 0;
    a.navigations.length = 0;
    await a.goto(config.logout, { waitUntil: 'load' });
    await a.waitForFunction((target) => location.href === target, { timeout: 20000 },
                            config.apps[0] + '/loggedout.html');
    out.steps.aLogout = { hops: [...a.navigations], frameRequests: [...a.frameRequests] };
    out.steps.aApp1After = await open(a, config.apps[0] + '/protected/');
    out.steps.aApp2After = await open(a, config.apps[1] + '/protected/');

    // (b) the password, then the TOTP code the test computes.
    const b = await newPage();
    await open(b, config.apps[0] + '/protected/');
    out.steps.bSecond = await signInWithPassword(b, config.totp);
    process.stdout.write(JSON.stringify({ need: 'totp' }) + '\n');
    const code = (await nextLine()).trim();
    await b.type('#code', code);
    out.steps.bBack = await submitAndWait(b, '#code-form button[type=submit]');

    // (c) a passkey: registered on svc's origin, then the hosted page's button.
    const c = await newPage();
    await authenticator(c);
    await c.goto(config.svc + '/account/reset', { waitUntil: 'load' });
    await c.addScriptTag({ url: config.svc + '/account/passkeys.js' });
    out.steps.cRegister = await c.evaluate((t) => SvcPasskeys.register(t, 'Laptop'), config.passkey.accountToken);
    out.steps.cSignInPage = await open(c, config.apps[0] + '/protected/');
    out.steps.cBack = await submitAndWait(c, '#passkey-button');
    out.steps.cApp2 = await open(c, config.apps[1] + '/protected/');

    // (d) a code by e-mail on a phone-sized screen: the sign-in page's link,
    // the address, then the code the test reads from the mail.
    const d = await newPage();
    await d.setViewport({ width: 390, height: 844 });
    out.steps.dSignInPage = await open(d, config.apps[0] + '/protected/');
    out.steps.dAddress = await submitAndWait(d, 'a[href^="/auth/oidc/email-code"]');
    await d.type('#email', config.emailCode.email);
    out.steps.dCodeForm = await submitAndWait(d, 'form button[type=submit]');
    process.stdout.write(JSON.stringify({ need: 'email-code' }) + '\n');
    await d.type('#code', (await nextLine()).trim());
    out.steps.dBack = await submitAndWait(d, '#code-form button[type=submit]');
  } finally {
    for (const context of contexts) await context.close().catch(() => {});
    await close();
  }
  return out;
}

run().then((out) => {
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}, (e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
