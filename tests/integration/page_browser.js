// What the page tests' Chromium drivers share (reset_page_browser.js,
// button_page_browser.js, account_page_browser.js, account_signin_browser.js,
// account_first_hour_browser.js):
// Debian's headless Chromium through puppeteer-core (from the repo-root package-lock.json; no browser is downloaded) in a
// fresh profile, one page that records console errors, requests and
// full-page screenshots, and the JSON the Python test reads; and the
// user's moves (type, press) and waiting for a text.
'use strict';

const fs = require('fs');
const path = require('path');
const { launchChromium } = require('./chromium');

// Runs `drive(page, out, shot)` and prints `out` as one JSON line on stdout;
// on any error prints it on stderr and exits 1. `out` starts as
// {states: {}, consoleErrors: [], requests: [], screenshots: []} and gets
// `cookies` (how many the browser holds) at the end; `shot(name)` saves a
// full-page PNG as OUT_DIR/name.png.
function runInChromium(outDir, drive) {
  async function main() {
    fs.mkdirSync(outDir, { recursive: true });
    const { browser, close } = await launchChromium();
    const out = { states: {}, consoleErrors: [], requests: [], screenshots: [] };
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(15000);
      page.on('console', (m) => { if (m.type() === 'error') out.consoleErrors.push(m.text()); });
      page.on('pageerror', (e) => out.consoleErrors.push(String(e)));
      page.on('request', (r) => out.requests.push(r.method() + ' ' + r.url()));
      const shot = async (name) => {
        const file = path.join(outDir, name + '.png');
        await page.screenshot({ path: file, fullPage: true });
        out.screenshots.push(file);
      };
      await drive(page, out, shot);
      out.cookies = (await page.cookies()).length;
    } finally {
      await close();
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
  main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
}

// Waits until the element `id` holds the text `wanted`.
async function waitText(page, id, wanted) {
  await page.waitForFunction((i, w) => (document.getElementById(i).textContent || '').includes(w), {}, id, wanted);
}

// Types `value` into the field `id` as a user would (focus, then keys).
async function type(page, id, value) {
  await page.$eval('#' + id, (e) => { e.value = ''; e.scrollIntoView({ block: 'center' }); });
  await page.focus('#' + id);
  await page.keyboard.type(value);
}

// Presses the button the selector names (once the page shows it; scrolled
// into view first).
async function press(page, selector) {
  await page.waitForSelector(selector, { visible: true });
  await page.$eval(selector, (e) => e.scrollIntoView({ block: 'center' }));
  await page.click(selector);
}

module.exports = { runInChromium, waitText, type, press };
