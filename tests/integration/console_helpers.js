// What the console's Chromium drivers share (console_browser.js,
// console_templates_browser.js): a TOTP code, waiting for a text, Shift+Tab,
// the viewport at 390 or 1280 px, and an axe-core run (serious and critical
// violations only) evaluated through the DevTools protocol, since the page's
// policy refuses an injected script tag.
'use strict';

const fs = require('fs');
const readline = require('readline');
const { execFileSync } = require('child_process');

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// A TOTP code of `secret` at now + `offset` seconds (RFC 6238 by oathtool).
function totp(secret, offset) {
  const at = Math.floor(Date.now() / 1000) + offset;
  return execFileSync('oathtool', ['--totp', '-b', '--now', '@' + at, secret], { encoding: 'utf8' }).trim();
}

// Waits until the element `id` exists and holds the text `wanted` (it may
// not exist yet: the page moves to another section on the way).
async function waitText(page, id, wanted) {
  await page.waitForFunction((i, w) => {
    const e = document.getElementById(i);
    return !!e && (e.textContent || '').includes(w);
  }, {}, id, wanted);
}

async function backTab(page) {
  await page.keyboard.down('Shift');
  await page.keyboard.press('Tab');
  await page.keyboard.up('Shift');
}

async function setWidth(page, w) {
  await page.setViewport(w === 390 ? { width: 390, height: 844, deviceScaleFactor: 2 } : { width: 1280, height: 900 });
}

// Runs axe-core on the page; out.axe[name] gets the violations found.
async function axe(page, out, name) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  out.axe[name] = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '));
  });
}

// Moves to the fragment `hash` and waits until `ready()` holds in the page.
async function go(page, hash, ready) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction(ready);
}

// Signs in by keyboard on the shown sign-in form: the address, Tab, the
// password, then the TOTP code of `secret` at now + `offset` seconds.
async function signInTotp(page, email, password, secret, offset) {
  await page.waitForFunction(() => !document.getElementById('signin-panel').hidden);
  // The form takes the focus itself; after a sign-out that may come a
  // moment later, so the field is focused (and emptied) here too.
  await page.$eval('#email', (e) => { e.value = ''; });
  await page.focus('#email');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mfa-form:not([hidden])');
  await page.focus('#mfa-code');
  await page.keyboard.type(totp(secret, offset));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.getElementById('view').hidden);
}

// Waits for the sign-in dialog over the page, its first form shown.
async function reauthShown(page) {
  await page.waitForFunction(() => document.getElementById('reauth').open &&
    !document.getElementById('signin').hidden);
}

// Signs in again in the dialog (the address is filled in): the password,
// then the TOTP code of `secret` at now + `offset` seconds. The dialog
// moves the focus itself; under load that can come after it shows, so each
// field is focused here too.
async function signInAgain(page, password, secret, offset) {
  await page.focus('#password');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mfa-form:not([hidden])');
  await page.focus('#mfa-form input');
  await page.keyboard.type(totp(secret, offset));
  await page.keyboard.press('Enter');
}

// Whether every shown field has its label, the page overflows sideways,
// and how much the page keeps in web storage.
function layout(page) {
  return page.evaluate(() => {
    const visible = (e) => !!e && !e.hidden && e.offsetParent !== null;
    return {
      labels: Array.from(document.querySelectorAll('input, select, textarea')).filter(visible)
        .every((i) => !!document.querySelector(`label[for="${i.id}"]`)),
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      storage: localStorage.length + sessionStorage.length,
    };
  });
}

// Asks the test for `what` (one line {"need": what} out) and resolves to
// its answer (one line in). A driver may ask more than once; between
// questions stdin is paused, so it does not keep the driver running.
let lines = null;
const waiting = [];
function ask(what) {
  if (!lines) {
    lines = readline.createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      const answer = waiting.shift();
      if (!waiting.length) lines.pause();
      if (answer) answer(line.trim());
    });
  }
  process.stdout.write(JSON.stringify({ need: what }) + '\n');
  lines.resume();
  return new Promise((resolve) => waiting.push(resolve));
}

// layout() and what `collect(texts, visible)` returns, evaluated in the
// page: texts(selector) is the text of each shown element it selects.
async function pageState(page, collect) {
  const visible = '(e) => !!e && !e.hidden && e.offsetParent !== null';
  const texts = `(sel) => Array.from(document.querySelectorAll(sel)).filter(${visible}).map((e) => e.textContent.trim())`;
  return Object.assign(await layout(page), await page.evaluate(`(${collect})(${texts}, ${visible})`));
}

// The run's pages as the Python side asserts them: the JSON args, and
// OUT_DIR and the page's address.
function driverArgs() {
  const [pageUrl, outDir, argsJson] = process.argv.slice(2);
  return { pageUrl, outDir, args: JSON.parse(argsJson) };
}

module.exports = { pageState, driverArgs, ask, totp, waitText, backTab, setWidth, axe, go, signInTotp, reauthShown,
                   signInAgain, layout };
