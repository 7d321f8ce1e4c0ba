// Drives "Sign in with …" in Debian's headless Chromium (page_browser.js) and
// prints what it saw; test_upstream_browser.py asserts. One launch, two parts:
//
// 1. The hosted OpenID Connect sign-in page of the relying site: its
//    provider button leads to the upstream (svc's own provider, another site
//    of the stack), whose sign-in page takes the upstream user's password;
//    the browser comes back signed in, at the client's redirect URI (which
//    the driver answers itself: nothing listens there).
// 2. The account centre (/account/?site=N) by clicking: user B signs in and
//    presses "Link your … account"; at the upstream, first user A's
//    account (linked to someone else): the page says nothing was linked;
//    back, then B's own upstream account: linked; back, the centre lists it,
//    and Unlink removes it.
//
// Between the parts and before each upstream visit the browser's cookies are
// cleared, so the upstream always asks who signs in (no single sign-on from
// an earlier step). Every step waits for what it presses and reads.
//
// usage: node upstream_browser.js OUT_DIR CONFIG_JSON
//   CONFIG_JSON: {"authorize", "redirectUri", "centre", "provider", "password",
//                 "upstreamA", "upstreamB", "userB"}
'use strict';

const { runInChromium, type, press, waitText } = require('./page_browser');

const [outDir, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);

async function clearCookies(page) {
  const cdp = await page.target().createCDPSession();
  await cdp.send('Network.clearBrowserCookies');
  await cdp.detach();
}

// Signs in on a hosted OpenID Connect sign-in page (the upstream's) and
// waits for the navigation its answer starts.
async function hostedSignIn(page, email) {
  await page.waitForSelector('#password-form #email', { visible: true });
  await type(page, 'email', email);
  await type(page, 'password', config.password);
  await Promise.all([page.waitForNavigation(), page.click('#password-form button[type="submit"]')]);
}

async function centreSignIn(page, email) {
  await page.waitForSelector('#signin:not([hidden])');
  await type(page, 'email', email);
  await type(page, 'password', config.password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#centre:not([hidden])');
  await page.waitForSelector('#up-section:not([hidden]) #up-links button', { visible: true });
}

async function centreState(page) {
  return page.evaluate(() => ({
    sectionTitle: document.getElementById('up-title').textContent,
    identities: Array.from(document.querySelectorAll('#identities li span')).map((s) => s.textContent),
    unlinkLabels: Array.from(document.querySelectorAll('#identities li button')).map((b) => b.getAttribute('aria-label')),
    linkButtons: Array.from(document.querySelectorAll('#up-links button')).map((b) => b.textContent),
    status: document.getElementById('up-status').textContent,
    labels: Array.from(document.querySelectorAll('input')).filter((i) => i.offsetParent !== null)
      .map((i) => !!document.querySelector(`label[for="${i.id}"]`)),
  }));
}

async function outcomePage(page) {
  await page.waitForSelector('#outcome');
  return page.evaluate(() => ({
    url: location.href,
    title: document.querySelector('h1').textContent,
    text: document.getElementById('outcome').textContent,
    back: document.getElementById('back').getAttribute('href'),
  }));
}

// Presses the centre's Link button of the provider and waits for the
// upstream's sign-in page.
async function pressLink(page) {
  const selector = '#up-links button';
  await page.waitForSelector(selector, { visible: true });
  await Promise.all([page.waitForNavigation(), press(page, selector)]);
}

runInChromium(outDir, async (page, out, shot) => {
  // The client's redirect URI: answered here, recorded.
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    if (r.url().startsWith(config.redirectUri)) {
      out.backAtClient = r.url();
      r.respond({ status: 200, contentType: 'text/html', body: '<!doctype html><title>App</title><p id="app">App</p>' });
    } else {
      r.continue();
    }
  });
  await page.setViewport({ width: 1280, height: 800 });

  // Part 1: the hosted sign-in page's provider button.
  await page.goto(config.authorize);
  const button = `button[name="provider"][value="${config.provider}"]`;
  await page.waitForSelector(button, { visible: true });
  out.buttonText = await page.$eval(button, (b) => b.textContent);
  await shot('1-sign-in-page');
  await Promise.all([page.waitForNavigation(), press(page, button)]);
  out.upstreamPage = page.url();
  await shot('2-upstream-sign-in');
  await hostedSignIn(page, config.upstreamA);
  await page.waitForSelector('#app');
  out.afterSignIn = page.url();
  await clearCookies(page);

  // Part 2: the account centre. B links A's upstream account: refused.
  await page.goto(config.centre);
  await centreSignIn(page, config.userB);
  out.centreBefore = await centreState(page);
  await shot('3-centre');
  await pressLink(page);
  out.linkUpstreamPage = page.url();
  await hostedSignIn(page, config.upstreamA);
  out.refused = await outcomePage(page);
  await shot('4-refused');
  await clearCookies(page);
  await Promise.all([page.waitForNavigation(), press(page, '#back')]);

  // B links B's own upstream account.
  await centreSignIn(page, config.userB);
  out.centreAfterRefusal = await centreState(page);
  await pressLink(page);
  await hostedSignIn(page, config.upstreamB);
  out.linked = await outcomePage(page);
  await shot('5-linked');
  await Promise.all([page.waitForNavigation(), press(page, '#back')]);
  await centreSignIn(page, config.userB);
  await page.waitForSelector('#identities li button');
  out.centreLinked = await centreState(page);
  await shot('6-centre-linked');

  // Unlink by keyboard: focus the row's button, Enter.
  await page.$eval('#identities li button', (b) => { b.scrollIntoView({ block: 'center' }); b.focus(); });
  await page.keyboard.press('Enter');
  await waitText(page, 'up-status', 'is unlinked');
  await page.waitForFunction(() => !document.querySelector('#identities li button'));
  out.centreUnlinked = await centreState(page);
  await shot('7-centre-unlinked');
});
