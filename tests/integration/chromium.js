// Debian's headless Chromium for the browser tests, driven by puppeteer-core
// from the repo-root package-lock.json (no browser is downloaded), with a
// throw-away profile. SVC_CHROMIUM overrides the binary.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

// The browser and a close() that also removes its profile.
async function launchChromium() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.SVC_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const close = async () => {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { browser, close };
}

module.exports = { launchChromium };
