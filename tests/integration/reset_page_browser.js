// Drives the ready reset page in Debian's headless Chromium (page_browser.js)
// and prints what it saw as one JSON object. test_reset_page.py runs it and
// asserts.
//
// usage: node reset_page_browser.js LINK OUT_DIR NEW_PASSWORD [QUERY_LINK [OLD_LINK [GUESSABLE]]]
//   LINK          the reset link of the e-mail (a fresh, unused token)
//   OUT_DIR       where the screenshots of each state go
//   NEW_PASSWORD  the strong password to set
//   QUERY_LINK    the page with the same token in the query string instead:
//                 opened first through nginx, then served as is (another
//                 server, no redirect); neither may honour the token
//   OLD_LINK      the same token in a link without the site (as mailed
//                 before issue 36): opened on the phone once LINK has spent it
//   GUESSABLE     a password that passes the five rules but not the site's
//                 minimum strength score: submitted before NEW_PASSWORD
'use strict';

const { runInChromium } = require('./page_browser');

const [link, outDir, strong, queryLink, oldLink, guessable] = process.argv.slice(2);

async function state(page) {
  return page.evaluate(() => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (document.getElementById(id) || {}).textContent || '';
    const rules = {};
    document.querySelectorAll('#rules li:not([hidden])').forEach((li) => {
      rules[li.dataset.rule] = li.classList.contains('met') ? 'met' : li.classList.contains('missing') ? 'missing' : 'pending';
    });
    return {
      url: location.href,
      site: visible('site') ? text('site-name') : '',
      appIdField: !!document.getElementById('appID'),
      bodyText: document.body.innerText,
      formVisible: visible('reset-form'),
      doneVisible: visible('done'),
      general: visible('general') ? text('general') : '',
      passwordError: visible('password-error') ? text('password-error') : '',
      confirmError: visible('confirmPassword-error') ? text('confirmPassword-error') : '',
      passwordInvalid: document.getElementById('password').getAttribute('aria-invalid'),
      focused: document.activeElement ? document.activeElement.id : '',
      rules,
      labels: Array.from(document.querySelectorAll('input')).map((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      cookie: document.cookie,
    };
  });
}

async function retype(page, selector, value) {
  await page.click(selector, { clickCount: 3 });
  await page.keyboard.press('Backspace');
  if (value) await page.type(selector, value);
}

// A "?token=" link: through nginx (which redirects to the bare page), then
// with the page served at that very address (as a server that does not
// redirect would), so the script itself sees the query. Both must show the
// page's "link is incomplete" state, never the form.
async function queryToken(page, out) {
  const viaNginx = await page.goto(queryLink, { waitUntil: 'networkidle0' });
  out.queryRedirects = viaNginx.request().redirectChain().map((r) => r.response().status());
  out.states.queryViaNginx = await state(page);

  const bare = queryLink.split('?')[0];
  const served = await fetch(bare);
  const html = await served.text();
  const headers = { 'content-type': served.headers.get('content-type'),
                    'content-security-policy': served.headers.get('content-security-policy') };
  const asIs = (r) => {
    if (r.isNavigationRequest() && r.url() === queryLink) r.respond({ status: 200, headers, body: html });
    else r.continue();
  };
  await page.goto('about:blank');
  await page.setRequestInterception(true);
  page.on('request', asIs);
  await page.goto(queryLink, { waitUntil: 'networkidle0' });
  out.states.queryServedAsIs = await state(page);
  page.off('request', asIs);
  await page.setRequestInterception(false);
  await page.goto('about:blank');
}

runInChromium(outDir, async (page, out, shot) => {
  await page.setViewport({ width: 1280, height: 800 });
  if (queryLink) await queryToken(page, out);

  // Wide screen: weak password, then a strong one, then submit.
  await page.goto(link, { waitUntil: 'networkidle0' });
  out.states.initial = await state(page);
  await shot('1-initial-1280');

  await page.type('#password', 'weakpass');
  out.states.weak = await state(page);
  await shot('2-weak-password-1280');

  await page.type('#confirmPassword', 'weakpass');
  await page.click('#submit');
  out.states.weakSubmitted = await state(page);

  if (guessable) {  // the server's verdict shows on its own line
    await retype(page, '#password', guessable);
    await retype(page, '#confirmPassword', guessable);
    await page.click('#submit');
    await page.waitForSelector('#rules li[data-rule="strongEnough"]:not([hidden])');
    out.states.guessable = await state(page);
    await shot('2b-guessable-1280');
  }

  await retype(page, '#password', strong);
  await retype(page, '#confirmPassword', strong + 'x');
  await page.click('#submit');
  out.states.mismatch = await state(page);
  await shot('3-mismatch-1280');

  await retype(page, '#confirmPassword', strong);
  out.states.strong = await state(page);
  await shot('4-strong-password-1280');

  await page.click('#submit');
  await page.waitForSelector('#done:not([hidden])');
  out.states.done = await state(page);
  await shot('5-success-1280');

  // Phone: the same (now spent) token shows the server's error, through
  // the old form of the link when given. (about:blank first: the link may
  // differ from the current address only in its fragment, which would not
  // load the page again.)
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto('about:blank');
  await page.goto(oldLink || link, { waitUntil: 'networkidle0' });
  out.states.phone = await state(page);
  await shot('6-initial-375');
  await page.type('#password', strong);
  await page.type('#confirmPassword', strong);
  await page.click('#submit');
  await page.waitForSelector('#general:not([hidden])');
  out.states.spent = await state(page);
  await shot('7-spent-token-375');
});
