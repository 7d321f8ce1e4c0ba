// Drives the account centre (/account/) the way a newcomer met it (issue 48)
// in Debian's headless Chromium (page_browser.js), and prints what it saw as
// one JSON object; test_account_page_first_hour.py asserts.
//
// usage: node account_first_hour_browser.js PLAIN_PAGE PASSKEY_PAGE OUT_DIR EMAIL PASSWORD
//
// On a site without passkeys (PLAIN_PAGE): forgot the password (the reset
// link is asked for, then back to the sign-in); ask for a sign-in code, ask
// again at once (the page says to wait) and after a minute (the page's clock
// moved on: a new request), go back; sign in with the password and read the
// sessions. The device names and times of devices.js for a table of user
// agents. Then a site with passkeys (PASSKEY_PAGE) offers them; at 390 px
// the forgotten-password step fits.
'use strict';

const { runInChromium, waitText, type, press } = require('./page_browser');

const [plainPage, passkeyPage, outDir, email, password] = process.argv.slice(2);

const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
    'Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 ' +
    'Edg/124.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0 Mobile/15E148 ' +
    'Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
  'curl/8.5.0',
  'Python-urllib/3.11',
  '<script>alert(1)</script>',
  '',
];
const NOW = 1800000000;
const AGES = [0, 30, 60, 200, 3000, 7200, 7 * 3600, 30 * 3600, 4 * 86400, 60 * 86400];

async function state(page) {
  return page.evaluate(() => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (visible(id) ? document.getElementById(id).textContent.trim() : '');
    return {
      steps: ['signin', 'forgot-form', 'code-form', 'mfa-form', 'centre'].filter(visible),
      focused: document.activeElement && document.activeElement.id,
      site: text('site-name'),
      email: document.getElementById('email').value,
      forgotEmail: document.getElementById('forgot-email').value,
      visible: ['signin-passkey', 'forgot', 'pk-section', 'mfa-passkey', 'code-again', 'code-back',
                'forgot-back'].filter(visible),
      status: ['forgot-status', 'code-status', 'general'].map(text),
      sessions: Array.from(document.querySelectorAll('#sessions li')).map((li) => li.textContent.trim()),
      bodyText: document.body.innerText,
      labels: Array.from(document.querySelectorAll('input')).filter((i) => i.offsetParent !== null)
        .every((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      innerWidth: window.innerWidth,
    };
  });
}

// Presses `button`, then waits for the part `shown` to appear; its state.
async function go(page, button, shown) {
  await press(page, button);
  await page.waitForSelector('#' + shown + ':not([hidden])');
  return state(page);
}

async function load(page, url) {
  await page.goto(url, { waitUntil: 'networkidle0' });
  await page.waitForFunction(() => !document.getElementById('site').hidden);
}

runInChromium(outDir, async (page, out, shot) => {
  await page.setViewport({ width: 1280, height: 900 });
  await load(page, plainPage);
  out.states.loaded = await state(page);
  await shot('1-signin-no-passkeys-1280');

  // A forgotten password: the link is asked for from the sign-in.
  await type(page, 'email', email);
  out.states.forgot = await go(page, '#forgot', 'forgot-form');
  await page.keyboard.press('Enter');
  await waitText(page, 'forgot-status', 'we sent it a link');
  out.states.forgotSent = await state(page);
  await shot('2-forgot-sent-1280');
  out.states.backFromForgot = await go(page, '#forgot-back', 'signin');

  // A sign-in code, "send again" at once, then a minute later, then back.
  out.states.codeAsked = await go(page, '#signin-code', 'code-form');
  await press(page, '#code-again');
  await waitText(page, 'code-status', 'less than a minute ago');
  out.states.codeTooSoon = await state(page);
  await page.evaluate(() => { const real = Date.now.bind(Date); Date.now = () => real() + 61000; });
  await press(page, '#code-again');
  await waitText(page, 'code-status', 'A new code is on its way');
  out.states.codeAgain = await state(page);
  await shot('3-code-again-1280');
  out.states.backFromCode = await go(page, '#code-back', 'signin');

  // Signed in with the password: the sessions in words.
  await type(page, 'password', password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#centre:not([hidden])');
  await page.waitForFunction(() => document.querySelectorAll('#sessions li').length >= 2);
  out.states.signedIn = await state(page);
  await shot('4-centre-no-passkeys-1280');

  out.names = await page.evaluate((uas) => uas.map((ua) => window.svcDevices.name(ua)), USER_AGENTS);
  out.ages = await page.evaluate((now, ages) => ages.map((a) => window.svcDevices.ago(now - a, now)), NOW, AGES);

  // A site with a relying party offers passkeys.
  await load(page, passkeyPage);
  await page.waitForSelector('#signin-passkey:not([hidden])');
  out.states.passkeySite = await state(page);

  // Narrow: the forgotten-password step fits.
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
  await load(page, plainPage);
  out.states.phoneForgot = await go(page, '#forgot', 'forgot-form');
  await shot('5-forgot-390');
});
