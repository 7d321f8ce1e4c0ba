// Drives the second factor's enrolment page (/account/security) in Debian's
// headless Chromium (page_browser.js) and prints what it saw as one JSON
// object. test_security_page.py runs it and asserts.
//
// usage: node security_page_browser.js SITE_PAGE PAGE UNKNOWN_SITE_PAGE OUT_DIR EMAIL PASSWORD
//   SITE_PAGE          the page naming a site (?site=N): the wide-screen part
//   PAGE               the page without a site: the phone part
//   UNKNOWN_SITE_PAGE  the page naming a site the server does not know: loaded last
//
// Wide screen (1280 px): sign in, start enrolment, screenshot the QR image
// (PNG) and read it with zbarimg (zbar-tools), take the secret from the
// decoded otpauth URL, let oathtool make the current code, confirm, read the
// recovery codes. Phone (375 px): the same page again (the token is gone with
// the reload), sign in, the second-factor step with the first recovery code,
// and "Set up" now says the factor is already on. Every token the page was
// given is looked for in every request URL, the address bar, both storages
// and the cookies.
'use strict';

const path = require('path');
const { execFileSync } = require('child_process');
const { runInChromium } = require('./page_browser');

const [sitePageUrl, pageUrl, unknownSiteUrl, outDir, email, password] = process.argv.slice(2);

async function state(page) {
  return page.evaluate(() => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (visible(id) ? document.getElementById(id).textContent : '');
    const storage = (s) => { const o = {}; for (let i = 0; i < s.length; i++) o[s.key(i)] = s.getItem(s.key(i)); return o; };
    return {
      url: location.href,
      site: visible('site') ? text('site-name') : '',
      appIdField: !!document.getElementById('appID'),
      bodyText: document.body.innerText,
      sections: ['signin-form', 'mfa-form', 'enrol', 'scan-form', 'codes'].filter(visible),
      general: text('general'),
      confirmError: text('confirm-code-error'),
      focused: document.activeElement ? document.activeElement.id : '',
      labels: Array.from(document.querySelectorAll('input')).filter((i) => i.offsetParent !== null)
        .map((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      codes: Array.from(document.querySelectorAll('#recovery-codes li')).map((li) => li.textContent),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      localStorage: storage(localStorage),
      sessionStorage: storage(sessionStorage),
      cookie: document.cookie,
    };
  });
}

// The RFC 6238 code of `secret` at `unixTime`, by oathtool (not svc's code).
function totp(secret, unixTime) {
  return execFileSync('oathtool', ['--totp', '-b', '--now', '@' + unixTime, secret], { encoding: 'utf8' }).trim();
}

// A 6-digit code that no step of the server's window (±1) accepts.
function wrongCode(secret) {
  const now = Math.floor(Date.now() / 1000);
  const valid = [-2, -1, 0, 1, 2].map((d) => totp(secret, now + 30 * d));
  return ['000000', '111111', '123456', '999999'].find((c) => !valid.includes(c));
}

async function signIn(page) {
  await page.type('#email', email);
  await page.type('#password', password);
  await page.click('#signin');
}

runInChromium(outDir, async (page, out, shot) => {
  out.tokens = [];
  // The appID each sign-in sent (null: none), never the password.
  out.loginApps = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/auth/login')) out.loginApps.push(JSON.parse(r.postData()).appID ?? null);
  });
  // The tokens the server hands the page, to look for them afterwards.
  page.on('response', async (r) => {
    if (!/\/auth\/(login|mfa\/verify)$/.test(r.url())) return;
    const body = await r.json().catch(() => null);
    if (body && body.token) out.tokens.push(body.token.access_token, body.token.refresh_token, body.token.account_token);
    if (body && body.mfa_token) out.tokens.push(body.mfa_token);
  });
  let setupReply = null;
  page.on('response', async (r) => {
    if (r.url().endsWith('/auth/mfa/totp/setup')) setupReply = await r.json().catch(() => null);
  });

  // Wide screen: sign in, set up, scan, confirm.
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(sitePageUrl, { waitUntil: 'networkidle0' });
  out.states.initial = await state(page);
  await shot('1-sign-in-1280');
  await signIn(page);
  await page.waitForSelector('#enrol:not([hidden])');
  out.states.signedIn = await state(page);
  await page.click('#setup');
  await page.waitForSelector('#scan-form:not([hidden])');
  await page.waitForFunction(() => { const i = document.getElementById('qr'); return i.complete && i.naturalWidth > 0; });
  out.states.scan = await state(page);
  out.qrSrc = await page.$eval('#qr', (i) => i.src);
  out.shownSecret = await page.$eval('#secret', (e) => e.textContent);
  await shot('2-scan-1280');

  // The QR code as the user's phone would see it: a PNG of the image element.
  const qrFile = path.join(outDir, 'qr.png');
  await (await page.$('#qr')).screenshot({ path: qrFile });
  out.decoded = execFileSync('zbarimg', ['--raw', '-q', qrFile], { encoding: 'utf8' }).trim();
  out.otpauthUrl = setupReply && setupReply.otpauth_url;
  const secret = new URL(out.decoded).searchParams.get('secret');

  // A wrong code first, then the one oathtool makes from the decoded secret.
  await page.type('#confirm-code', wrongCode(secret));
  await page.click('#confirm');
  await page.waitForSelector('#confirm-code-error:not([hidden])');
  out.states.wrongCode = await state(page);
  const code = totp(secret, Math.floor(Date.now() / 1000));
  await page.click('#confirm-code', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.type('#confirm-code', code);
  await page.click('#confirm');
  await page.waitForSelector('#codes:not([hidden])');
  out.states.codes = await state(page);
  out.qrSrcAfter = await page.$eval('#qr', (i) => i.getAttribute('src'));
  await shot('3-recovery-codes-1280');

  // A narrow window (not yet isMobile: switching it reloads the page,
  // which would forget the codes).
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2 });
  out.states.codesPhone = await state(page);
  await shot('4-recovery-codes-375');

  // Phone, a fresh load: the page remembers nothing, so sign in again; the
  // account now asks for the second factor (a recovery code here).
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto('about:blank');
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  out.states.reloaded = await state(page);
  await shot('5-sign-in-375');
  await signIn(page);
  await page.waitForSelector('#mfa-form:not([hidden])');
  out.states.mfaStep = await state(page);
  await shot('6-second-factor-375');
  await page.type('#mfa-code', out.states.codes.codes[0]);
  await page.click('#mfa-submit');
  await page.waitForSelector('#enrol:not([hidden])');
  await page.click('#setup');
  await page.waitForSelector('#general:not([hidden])');
  out.states.alreadyOn = await state(page);
  await shot('7-already-on-375');

  await page.goto(unknownSiteUrl, { waitUntil: 'networkidle0' });
  out.states.unknownSite = await state(page);
});
