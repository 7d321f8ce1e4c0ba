// What the console's Chromium drivers share (console_browser.js,
// console_templates_browser.js): a TOTP code, waiting for a text, Shift+Tab,
// the viewport at 390 or 1280 px, and an axe-core run (serious and critical
// violations only) evaluated through the DevTools protocol, since the page's
// policy refuses an injected script tag.
'use strict';

const fs = require('fs');
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

module.exports = { totp, waitText, backTab, setWidth, axe };
