// Drives a ready page of one button (/account/verify, /account/not-me;
// web/account/) in Debian's headless Chromium (puppeteer-core from the
// repo-root package-lock.json; no browser is downloaded).
// test_verify_page.py and test_not_me_page.py run it.
//
// usage: node button_page_browser.js LINK OUT_DIR FORM_ID [TEXT_ID...]
//   LINK     the link of the e-mail (token in the fragment)
//   OUT_DIR  where the screenshots go
//   FORM_ID  the id of the page's form (its button is #submit)
//   TEXT_ID  elements whose text the states report (what the page shows)
//
// A conversation over stdin/stdout, one JSON object a line: after loading
// the page (its script has run; nothing is pressed) it prints
// {"loaded": state}; then it waits for a line "click" on stdin, presses the
// button, waits for the result and prints {"clicked": state, ...} and exits.
// In between, the test checks that loading the page changed nothing.
'use strict';

const readline = require('readline');
const { runInChromium } = require('./page_browser');

const [link, outDir, formId, ...textIds] = process.argv.slice(2);

async function state(page) {
  return page.evaluate((form, ids) => {
    const visible = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const text = (id) => (document.getElementById(id) || {}).textContent || '';
    const shown = {};
    for (const id of ids) shown[id] = text(id);
    return {
      url: location.href,
      site: visible('site') ? text('site-name') : '',
      formVisible: visible(form),
      doneVisible: visible('done'),
      text: shown,
      general: visible('general') ? text('general') : '',
      focused: document.activeElement ? document.activeElement.id : '',
      overflow: document.documentElement.scrollWidth > window.innerWidth,
    };
  }, formId, textIds);
}

function nextLine() {
  const rl = readline.createInterface({ input: process.stdin });
  return new Promise((resolve) => rl.once('line', (line) => { rl.close(); resolve(line.trim()); }));
}

runInChromium(outDir, async (page, out, shot) => {
  await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(link, { waitUntil: 'networkidle0' });
  const loaded = await state(page);
  await shot('1-loaded-375');
  process.stdout.write(JSON.stringify({ loaded, requests: out.requests.slice() }) + '\n');

  if ((await nextLine()) !== 'click') throw new Error('expected "click" on stdin');
  await page.click('#submit');
  await page.waitForSelector('#done:not([hidden]), #general:not([hidden])');
  out.clicked = await state(page);
  await shot('2-clicked-375');
});
