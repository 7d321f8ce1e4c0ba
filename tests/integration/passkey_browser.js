// Drives passkeys in Debian's headless Chromium with its virtual
// authenticator (DevTools protocol WebAuthn domain: ctap2, internal
// transport, resident keys, user verification), puppeteer-core from the
// repo-root package-lock.json. Prints what it saw as one JSON object;
// test_passkeys.py runs it and asserts.
//
// usage: node passkey_browser.js run CONFIG_JSON
//   CONFIG_JSON {"origin": "http://localhost:PORT", "bOrigin": "http://b.localhost:PORT",
//                "siteA": N, "siteB": N, "user": {"email", "access"},
//                "mfaUser": {"email", "password", "access"}}
//   The page is the stack's /account/reset (any page of the origin would
//   do) with /account/passkeys.js added; the ceremonies run through it, the
//   refusals through the API directly with answers the page made.
// usage: node passkey_browser.js vectors OUT_DIR
//   Writes webauthn-es256.json, webauthn-eddsa.json and webauthn-rs256.json:
//   one registration and one assertion each, made on a page this script
//   serves at http://localhost:<free port>, for the unit tests (run once;
//   the files are committed under tests/data/).
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const { launchChromium } = require('./chromium');

// A blank page on 127.0.0.1:<free port>, reached as http://localhost:<port>.
function blankServer() {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>other origin</title><p>another page</p>');
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function authenticator(page) {
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

const b64url = (buf) => Buffer.from(buf).toString('base64url');

// ---- vectors ---------------------------------------------------------------

async function vectors(outDir) {
  const server = await blankServer();
  const origin = 'http://localhost:' + server.address().port;
  const { browser, close } = await launchChromium();
  try {
    for (const [name, alg] of [['es256', -7], ['eddsa', -8], ['rs256', -257]]) {
      const page = await browser.newPage();
      await authenticator(page);
      await page.goto(origin + '/', { waitUntil: 'load' });
      const regChallenge = b64url(Buffer.from('svc fixed registration challenge ' + name));
      const getChallenge = b64url(Buffer.from('svc fixed assertion challenge ' + name));
      const made = await page.evaluate(async (alg, regChallenge, getChallenge) => {
        const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON({
          rp: { id: 'localhost', name: 'svc vectors' },
          user: { id: 'dmVjdG9yLXVzZXI', name: 'vector@example.com', displayName: 'Vector' },
          challenge: regChallenge, pubKeyCredParams: [{ type: 'public-key', alg }],
          authenticatorSelection: { residentKey: 'required', userVerification: 'required' }, attestation: 'none',
        });
        const registration = (await navigator.credentials.create({ publicKey })).toJSON();
        const request = PublicKeyCredential.parseRequestOptionsFromJSON({
          challenge: getChallenge, rpId: 'localhost', allowCredentials: [{ type: 'public-key', id: registration.id }],
          userVerification: 'required',
        });
        const assertion = (await navigator.credentials.get({ publicKey: request })).toJSON();
        return { registration, assertion };
      }, alg, regChallenge, getChallenge);
      const vector = {
        made_by: 'tests/integration/passkey_browser.js vectors (Chromium virtual authenticator)',
        alg, rp_id: 'localhost', origin,
        registration: { challenge: regChallenge, credential: made.registration },
        assertion: { challenge: getChallenge, credential: made.assertion },
      };
      fs.writeFileSync(path.join(outDir, 'webauthn-' + name + '.json'), JSON.stringify(vector, null, 2) + '\n');
      await page.close();
    }
  } finally {
    await close();
    server.close();
  }
}

// ---- the ceremonies against the stack --------------------------------------

async function run(config) {
  const out = { steps: {}, replies: [], consoleErrors: [] };
  const other = await blankServer();
  const otherOrigin = 'http://localhost:' + other.address().port;
  const { browser, close } = await launchChromium();

  // Every API reply, from the page or from here, for the OpenAPI check.
  const record = (method, url, status, contentType, raw) => {
    const u = new URL(url);
    if (u.pathname.startsWith('/auth/')) out.replies.push({ method, path: u.pathname, status, contentType, raw });
  };
  const api = async (pathName, body, token, base = config.origin) => {
    const headers = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = await fetch(base + pathName, { method: 'POST', headers, body: JSON.stringify(body || {}) });
    const raw = await res.text();
    record('POST', base + pathName, res.status, res.headers.get('content-type'), raw);
    let json = null;
    try { json = JSON.parse(raw); } catch (e) { /* recorded raw */ }
    return { status: res.status, body: json };
  };

  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(20000);
    page.on('console', (m) => { if (m.type() === 'error') out.consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => out.consoleErrors.push(String(e)));
    page.on('response', async (r) => {
      if (r.request().method() !== 'POST') return;
      try { record('POST', r.url(), r.status(), r.headers()['content-type'], await r.text()); } catch (e) { /* gone */ }
    });
    const { cdp, id: authId } = await authenticator(page);

    const openSvcPage = async (origin) => {
      await page.goto(origin + '/account/reset', { waitUntil: 'load' });
      await page.addScriptTag({ url: origin + '/account/passkeys.js' });
    };
    const inPage = (fn, ...args) => page.evaluate(fn, ...args);
    // An answer made by the page (SvcPasskeys.get) to options from the API.
    const assertionFor = async (options) => inPage((o) => SvcPasskeys.get(o), options);

    await openSvcPage(config.origin);
    out.steps.supported = await inPage(() => SvcPasskeys.supported());

    // Register (passkeys.js end to end), then list.
    out.steps.register = await inPage((t) => SvcPasskeys.register(t, 'Laptop'), config.user.access);
    out.steps.registerAgain = await inPage((t) => SvcPasskeys.register(t, 'Again')
      .then((r) => ({ reply: r }), (e) => ({ error: e.name })), config.user.access);
    out.steps.list = await inPage((t) => SvcPasskeys.list(t), config.user.access);
    const creds = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: authId })).credentials;
    out.steps.authenticatorCredentials = creds.map((c) => ({ rpId: c.rpId, resident: c.isResidentCredential,
                                                               signCount: c.signCount }));

    // Sign in with an e-mail and without one (discoverable).
    out.steps.signInEmail = await inPage((a, e) => SvcPasskeys.signIn({ appID: a, email: e }), config.siteA,
                                         config.user.email);
    out.steps.signInDiscoverable = await inPage((a) => SvcPasskeys.signIn({ appID: a }), config.siteA);
    out.steps.signInOtherEmail = await inPage((a, e) => SvcPasskeys.signIn({ appID: a, email: e }), config.siteA,
                                              config.mfaUser.email);

    // A replayed challenge: the same accepted answer twice.
    let start = await api('/auth/passkey/login/options', { appID: config.siteA });
    let credential = await assertionFor(start.body.options);
    const body = { challenge_token: start.body.challenge_token, credential };
    out.steps.replayFirst = await api('/auth/passkey/login', body);
    out.steps.replaySecond = await api('/auth/passkey/login', body);

    // A tampered signature.
    start = await api('/auth/passkey/login/options', { appID: config.siteA });
    credential = await assertionFor(start.body.options);
    const sig = Buffer.from(credential.response.signature, 'base64url');
    sig[sig.length - 1] ^= 0x01;
    credential.response.signature = b64url(sig);
    out.steps.tampered = await api('/auth/passkey/login', { challenge_token: start.body.challenge_token, credential });

    // A wrong origin: a second page on another port makes the answer.
    start = await api('/auth/passkey/login/options', { appID: config.siteA });
    await page.goto(otherOrigin + '/', { waitUntil: 'load' });
    credential = await inPage(async (o) => {
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(o);
      return (await navigator.credentials.get({ publicKey })).toJSON();
    }, start.body.options);
    out.steps.wrongOriginClientOrigin = JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url')).origin;
    out.steps.wrongOrigin = await api('/auth/passkey/login',
                                      { challenge_token: start.body.challenge_token, credential });

    // Another site's RP id: the same credential (id and key) made for site
    // B's RP id, answered on a page of site B, sent to a challenge of site A.
    const [cred] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: authId })).credentials;
    await cdp.send('WebAuthn.removeCredential', { authenticatorId: authId, credentialId: cred.credentialId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId: authId, credential: { ...cred, rpId: config.bRpId } });
    start = await api('/auth/passkey/login/options', { appID: config.siteA });
    await page.goto(config.bOrigin + '/account/reset', { waitUntil: 'load' });
    credential = await inPage(async (o, rpId) => {
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON({ ...o, rpId });
      return (await navigator.credentials.get({ publicKey })).toJSON();
    }, start.body.options, config.bRpId);
    out.steps.otherRpId = await api('/auth/passkey/login', { challenge_token: start.body.challenge_token, credential });
    const [moved] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: authId })).credentials;
    await cdp.send('WebAuthn.removeCredential', { authenticatorId: authId, credentialId: cred.credentialId });

    // A lowered sign count: the credential back with its counter at 0 (a
    // clone of the authenticator as it was before its first use).
    await cdp.send('WebAuthn.addCredential', { authenticatorId: authId, credential: { ...cred, signCount: 0 } });
    await openSvcPage(config.origin);
    out.steps.signCountBefore = moved.signCount;
    out.steps.lowered = await inPage((a) => SvcPasskeys.signIn({ appID: a }), config.siteA);
    // ... and with a counter above the stored one, accepted again.
    await cdp.send('WebAuthn.removeCredential', { authenticatorId: authId, credentialId: cred.credentialId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId: authId, credential: { ...cred, signCount: 100 } });
    out.steps.raised = await inPage((a) => SvcPasskeys.signIn({ appID: a }), config.siteA);

    // Delete: the passkey goes, and signs in no more.
    const listed = await inPage((t) => SvcPasskeys.list(t), config.user.access);
    out.steps.delete = await inPage((t, id) => SvcPasskeys.remove(t, id), config.user.access, listed.passkeys[0].id);
    out.steps.deleteAgain = await inPage((t, id) => SvcPasskeys.remove(t, id), config.user.access,
                                         listed.passkeys[0].id);
    out.steps.listAfterDelete = await inPage((t) => SvcPasskeys.list(t), config.user.access);
    out.steps.signInDeleted = await inPage((a) => SvcPasskeys.signIn({ appID: a }), config.siteA);
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId: authId });

    // The second factor: a user with TOTP registers a passkey, logs in with
    // the password and answers the second step with the passkey.
    out.steps.mfaRegister = await inPage((t) => SvcPasskeys.register(t, 'Phone'), config.mfaUser.access);
    out.steps.mfaPassword = await api('/auth/login', { email: config.mfaUser.email, password: config.mfaUser.password,
                                                       appID: config.siteA });
    // A tampered answer first: one of the mfa_token's tries, refused.
    const mfaToken = out.steps.mfaPassword.body.mfa_token;
    start = await api('/auth/passkey/login/options', { mfa_token: mfaToken });
    out.steps.mfaOptions = start.body.options;
    credential = await assertionFor(start.body.options);
    const mfaSig = Buffer.from(credential.response.signature, 'base64url');
    mfaSig[mfaSig.length - 1] ^= 0x01;
    credential.response.signature = b64url(mfaSig);
    out.steps.mfaTampered = await api('/auth/passkey/login', { challenge_token: start.body.challenge_token, credential });
    out.steps.mfaPasskey = await inPage((m) => SvcPasskeys.secondFactor(m), mfaToken);
    out.steps.mfaPasskeyAgain = await inPage((m) => SvcPasskeys.secondFactor(m), out.steps.mfaPassword.body.mfa_token);
  } finally {
    await close();
    other.close();
  }
  return out;
}

async function main() {
  const [mode, arg] = process.argv.slice(2);
  if (mode === 'vectors') {
    await vectors(arg);
    return;
  }
  const out = await run(JSON.parse(arg));
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
