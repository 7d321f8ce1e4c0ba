// Drives the account centre's sign-in and two-factor enrolment (/account/,
// web/account/index.html) in Debian's headless Chromium (page_browser.js)
// and prints what it saw; test_account_page_signin.py asserts. It took over
// what the old enrolment page's driver (/account/security) checked.
//
// usage: node account_signin_browser.js SITE_PAGE PAGE UNKNOWN_SITE_PAGE OUT_DIR EMAIL PASSWORD
//   SITE_PAGE          the centre naming a site (?site=N): the wide-screen part
//   PAGE               the centre without a site: the phone part
//   UNKNOWN_SITE_PAGE  the centre naming a site the server does not know: loaded last
//
// The e-mailed code: when the page asks for it the script prints one line
// {"need":"code"} and reads the code from its stdin (the test takes it from
// the mail in its SMTP sink). Then the final JSON line, as every driver.
//
// Wide screen (1280 px): sign in with an e-mailed code, turn TOTP on:
// screenshot the QR image (PNG) and read it with zbarimg (zbar-tools), a
// wrong code first, then oathtool's code from the decoded secret; read the
// recovery codes. Narrow (375 px): the codes still fit. Phone (375 px, a
// fresh load of the page without a site): sign in with the password, the
// second step with the first recovery code, the centre says TOTP is on.
// Every token the page was given is looked for in every request URL, the
// address bar, both storages and the cookies.
'use strict';

const path = require('path');
const readline = require('readline');
const { execFileSync } = require('child_process');
const { runInChromium } = require('./page_browser');

const [sitePageUrl, pageUrl, unknownSiteUrl, outDir, email, password] = process.argv.slice(2);

async function state(page) {
  return page.evaluate(() => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (visible(id) ? document.getElementById(id).textContent.trim() : '');
    const storage = (s) => { const o = {}; for (let i = 0; i < s.length; i++) o[s.key(i)] = s.getItem(s.key(i)); return o; };
    return {
      url: location.href,
      site: visible('site') ? text('site-name') : '',
      appIdField: !!document.getElementById('appID'),
      bodyText: document.body.innerText,
      steps: ['signin', 'code-form', 'mfa-form', 'centre', 'tfa-scan', 'tfa-recovery'].filter(visible),
      general: text('general'),
      who: text('who'),
      tfaState: text('tfa-state'),
      tfaStatus: text('tfa-status'),
      confirmError: text('tfa-confirm-code-error'),
      focused: document.activeElement ? document.activeElement.id : '',
      labels: Array.from(document.querySelectorAll('input')).filter((i) => i.offsetParent !== null)
        .map((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      codes: Array.from(document.querySelectorAll('#recovery-codes li')).map((li) => li.textContent),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
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

// Asks the test for the e-mailed code: one line out, one line in.
function askForCode() {
  process.stdout.write(JSON.stringify({ need: 'code' }) + '\n');
  const lines = readline.createInterface({ input: process.stdin });
  return new Promise((resolve) => lines.once('line', (line) => {
    lines.close();
    process.stdin.destroy();  // nothing more to read; an open stdin would keep node running
    resolve(line.trim());
  }));
}

async function type(page, id, value) {
  await page.$eval('#' + id, (e) => { e.value = ''; e.scrollIntoView({ block: 'center' }); });
  await page.focus('#' + id);
  await page.keyboard.type(value);
}

runInChromium(outDir, async (page, out, shot) => {
  out.tokens = [];
  // The appID each sign-in request sent (null: none), never the secrets.
  out.signIns = [];
  page.on('request', (r) => {
    const m = /\/auth\/(login|email-code|email-code\/verify)$/.exec(r.url());
    if (m) out.signIns.push([m[1], JSON.parse(r.postData()).appID ?? null]);
  });
  page.on('response', async (r) => {
    if (!/\/auth\/(login|mfa\/verify|email-code\/verify)$/.test(r.url())) return;
    const body = await r.json().catch(() => null);
    if (body && body.token) out.tokens.push(body.token.access_token, body.token.refresh_token, body.token.account_token);
    if (body && body.mfa_token) out.tokens.push(body.mfa_token);
  });
  let setupReply = null;
  page.on('response', async (r) => {
    if (r.url().endsWith('/auth/mfa/totp/setup')) setupReply = await r.json().catch(() => null);
  });

  // Wide screen: sign in with a code the SMTP sink received.
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(sitePageUrl, { waitUntil: 'networkidle0' });
  await page.waitForFunction(() => !document.getElementById('site').hidden);
  out.states.initial = await state(page);
  await shot('1-sign-in-1280');
  await page.keyboard.type(email);  // the e-mail field has the focus
  await page.click('#signin-code');
  await page.waitForSelector('#code-form:not([hidden])');
  out.states.codeAsked = await state(page);
  await shot('2-code-1280');
  await page.keyboard.type(await askForCode());  // the code field has the focus
  await page.keyboard.press('Enter');
  await page.waitForSelector('#centre:not([hidden])');
  out.states.signedIn = await state(page);

  // Two-factor on: the QR code as the user's phone would see it.
  await page.$eval('#tfa-on', (e) => e.scrollIntoView({ block: 'center' }));
  await page.click('#tfa-on');
  await page.waitForSelector('#tfa-scan:not([hidden])');
  await page.waitForFunction(() => { const i = document.getElementById('qr'); return i.complete && i.naturalWidth > 0; });
  out.states.scan = await state(page);
  out.qrSrc = await page.$eval('#qr', (i) => i.src);
  out.shownSecret = await page.$eval('#secret', (e) => e.textContent);
  await shot('3-scan-1280');
  const qrFile = path.join(outDir, 'qr.png');
  await (await page.$('#qr')).screenshot({ path: qrFile });
  out.decoded = execFileSync('zbarimg', ['--raw', '-q', qrFile], { encoding: 'utf8' }).trim();
  out.otpauthUrl = setupReply && setupReply.otpauth_url;
  const secret = new URL(out.decoded).searchParams.get('secret');

  await type(page, 'tfa-confirm-code', wrongCode(secret));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tfa-confirm-code-error:not([hidden])');
  out.states.wrongCode = await state(page);
  await type(page, 'tfa-confirm-code', totp(secret, Math.floor(Date.now() / 1000)));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tfa-recovery:not([hidden])');
  out.states.codes = await state(page);
  out.qrSrcAfter = await page.$eval('#qr', (i) => i.getAttribute('src'));
  await shot('4-recovery-codes-1280');

  // A narrow window (not isMobile: switching it reloads the page, which
  // would forget the sign-in and the codes).
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2 });
  out.states.codesPhone = await state(page);
  await shot('5-recovery-codes-375');

  // Phone, a fresh load without a site: the page remembers nothing; the
  // password now leads to the second step, answered with a recovery code.
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto('about:blank');
  await page.goto(pageUrl, { waitUntil: 'networkidle0' });
  out.states.reloaded = await state(page);
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mfa-form:not([hidden])');
  out.states.mfaStep = await state(page);
  await shot('6-second-factor-375');
  await page.keyboard.type(out.states.codes.codes[0]);  // the code field has the focus
  await page.keyboard.press('Enter');
  await page.waitForSelector('#centre:not([hidden])');
  out.states.phoneCentre = await state(page);
  await shot('7-centre-375');

  await page.goto(unknownSiteUrl, { waitUntil: 'networkidle0' });
  out.states.unknownSite = await state(page);
});
