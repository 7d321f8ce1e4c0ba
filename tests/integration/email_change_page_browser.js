// Drives the e-mail change page (/account/email-change, web/account/) in
// Debian's headless Chromium (puppeteer-core; no browser is downloaded).
// test_account_self_service.py runs it.
//
// usage: node email_change_page_browser.js LINK OUT_DIR
// Loads the link (its script runs, nothing is pressed), prints
// {"loaded": state}, waits for "click" on stdin, presses the button, prints
// {"clicked": state, ...} and exits.
'use strict';

const readline = require('readline');
const { runInChromium } = require('./page_browser');

const [link, outDir] = process.argv.slice(2);

async function state(page) {
  return page.evaluate(() => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (document.getElementById(id) || {}).textContent || '';
    return {
      url: location.href,
      site: visible('site') ? text('site-name') : '',
      formVisible: visible('change-form'),
      button: text('submit'),
      doneVisible: visible('done'),
      doneTitle: visible('done') ? text('done-title') : '',
      general: visible('general') ? text('general') : '',
      focused: document.activeElement ? document.activeElement.id : '',
      overflow: document.documentElement.scrollWidth > window.innerWidth,
    };
  });
}

function nextLine() {
  const rl = readline.createInterface({ input: process.stdin });
  return new Promise((resolve) => rl.once('line', (line) => { rl.close(); resolve(line.trim()); }));
}

runInChromium(outDir, async (page, out, shot) => {
  await page.setViewport({ width: 390, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(link, { waitUntil: 'networkidle0' });
  const loaded = await state(page);
  await shot('1-loaded-390');
  process.stdout.write(JSON.stringify({ loaded, requests: out.requests.slice() }) + '\n');

  if ((await nextLine()) !== 'click') throw new Error('expected "click" on stdin');
  await page.click('#submit');
  await page.waitForSelector('#done:not([hidden]), #general:not([hidden])');
  out.clicked = await state(page);
  await shot('2-clicked-390');
});
