// The enrolment page of the second factor (/account/security): signs the
// user in (POST /auth/login, then /auth/mfa/verify when the account already
// has a factor), starts enrolment (/auth/mfa/totp/setup), shows the reply's
// QR code as an image, confirms the first code (/auth/mfa/totp/confirm) and
// shows the recovery codes once. The address may name the site
// (/account/security?site=N): the page shows its name (form.js) and signs in
// to it; without one (or with a site the server does not know) it signs in
// without a site, to the account itself.
//
// The sign-in reply's account_token (the only token svc's /auth/mfa/* routes
// take: its audience is svc itself, not the site's backend) lives in this
// closure only: never in localStorage,
// sessionStorage, a cookie or a URL, so closing or reloading the tab forgets
// it. The QR code is the server's SVG (core/qr_svg.cpp) shown through a blob:
// URL, which the page's Content-Security-Policy (img-src 'self' blob:,
// nginx/snippets/svc-reset-page.conf) allows; an SVG shown as an image runs
// no script. No inline script, no external requests.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const FIELDS = ['email', 'password', 'mfa-code', 'confirm-code'];
  const SECTIONS = ['signin-form', 'mfa-form', 'enrol', 'scan-form', 'codes'];
  let accessToken = '';
  let site = '';  // the site to sign in to (?site=N), '' for none
  let mfaToken = '';
  let qrUrl = '';
  let codesUrl = '';

  function show(id, focusId) {
    SECTIONS.forEach((s) => { $(s).hidden = s !== id; });
    const target = $(focusId || id);
    if (target) target.focus();
  }

  const { setFieldError } = window.svcForm;  // form.js

  // The alert, focused so that a screen reader reads it at once.
  function setGeneral(message) {
    window.svcForm.setGeneral(message);
    if (message) $('general').focus();
  }

  function clearErrors() {
    FIELDS.forEach((f) => setFieldError(f, ''));
    setGeneral('');
  }

  const post = window.svcForm.postJson;  // form.js

  // Shows a failed reply: field errors next to their fields (`rename` maps
  // the API's field names to this page's), anything else in the alert.
  function showFailure(reply, rename) {
    const body = reply.body || {};
    const message = typeof body.message === 'string' ? body.message : '';
    if (reply.status === 0) {
      setGeneral('The server could not be reached. Check your connection and try again.');
    } else if (reply.status === 429) {
      setGeneral('Too many attempts. Please wait a minute and try again.');
    } else if (Array.isArray(body.errors)) {
      let first = null;
      const other = [];
      body.errors.forEach((e) => {
        const field = (rename && rename[e.field]) || e.field;
        if (FIELDS.includes(field) && !$(field).closest('[hidden]')) {
          setFieldError(field, e.message);
          first = first || field;
        } else {
          other.push(e.message);
        }
      });
      if (other.length) setGeneral(other.join(' '));
      else if (first) $(first).focus();
    } else {
      setGeneral(message || 'Something went wrong. Please try again later.');
    }
  }

  function busy(button, on) { $(button).disabled = on; }

  function signedIn(body) {
    accessToken = body.token.account_token || body.token.access_token;
    mfaToken = '';
    $('password').value = '';
    $('mfa-code').value = '';
    $('who').textContent = (body.token.user && body.token.user.email) || $('email').value;
    show('enrol', 'enrol-title');
  }

  async function signIn(event) {
    event.preventDefault();
    clearErrors();
    const email = $('email').value.trim();
    const password = $('password').value;
    if (!email) { setFieldError('email', 'email is required'); $('email').focus(); return; }
    if (!password) { setFieldError('password', 'password is required'); $('password').focus(); return; }
    const payload = { email, password };
    if (site) payload.appID = site;  // a decimal string, as the API accepts ids
    busy('signin', true);
    const reply = await post('/auth/login', payload);
    busy('signin', false);
    const body = reply.body || {};
    if (reply.status === 200 && body.token) { signedIn(body); return; }
    if (reply.status === 401 && typeof body.mfa_token === 'string') {
      mfaToken = body.mfa_token;
      show('mfa-form', 'mfa-code');
      return;
    }
    showFailure(reply);
  }

  async function secondFactor(event) {
    event.preventDefault();
    clearErrors();
    const typed = $('mfa-code').value.trim();
    if (!typed) { setFieldError('mfa-code', 'code is required'); $('mfa-code').focus(); return; }
    const digits = typed.replace(/\s+/g, '');
    const payload = /^[0-9]{6}$/.test(digits) ? { mfa_token: mfaToken, code: digits }
                                              : { mfa_token: mfaToken, recovery_code: typed };
    busy('mfa-submit', true);
    const reply = await post('/auth/mfa/verify', payload);
    busy('mfa-submit', false);
    const body = reply.body || {};
    if (reply.status === 200 && body.token) { signedIn(body); return; }
    if (body.message === 'Second factor expired, log in again') {
      mfaToken = '';
      show('signin-form', 'password');
      setGeneral('That took too long or too many tries. Please sign in again.');
      return;
    }
    if (body.message === 'Invalid code') {
      setFieldError('mfa-code', 'That code is not right. Try the newest code of your app.');
      $('mfa-code').focus();
      return;
    }
    showFailure(reply, { code: 'mfa-code', recovery_code: 'mfa-code' });
  }

  async function setUp() {
    clearErrors();
    busy('setup', true);
    const reply = await post('/auth/mfa/totp/setup', null, accessToken);
    busy('setup', false);
    const body = reply.body || {};
    if (reply.status === 200 && typeof body.secret === 'string') {
      if (qrUrl) URL.revokeObjectURL(qrUrl);
      qrUrl = '';
      const img = $('qr');
      if (typeof body.qr_svg === 'string') {
        qrUrl = URL.createObjectURL(new Blob([body.qr_svg], { type: 'image/svg+xml' }));
        img.src = qrUrl;
        img.hidden = false;
      } else {
        img.removeAttribute('src');
        img.hidden = true;
      }
      // Groups of four, as apps print keys; spaces are ignored when typed.
      $('secret').textContent = body.secret.replace(/(.{4})(?=.)/g, '$1 ');
      $('confirm-code').value = '';
      show('scan-form', 'scan-title');
      return;
    }
    if (reply.status === 409) {
      setGeneral('Two-factor authentication is already on for this account. To change the app, turn it off first.');
      return;
    }
    if (reply.status === 403) {
      setGeneral('Confirm your e-mail address first: follow the link we sent you (or reset your password), ' +
                 'then sign in here again.');
      return;
    }
    if (reply.status === 401) {
      accessToken = '';
      show('signin-form', 'email');
      setGeneral('Your sign-in has expired. Please sign in again.');
      return;
    }
    showFailure(reply);
  }

  async function confirm(event) {
    event.preventDefault();
    clearErrors();
    const code = $('confirm-code').value.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(code)) {
      setFieldError('confirm-code', 'Type the 6 digits your app shows.');
      $('confirm-code').focus();
      return;
    }
    busy('confirm', true);
    const reply = await post('/auth/mfa/totp/confirm', { code }, accessToken);
    busy('confirm', false);
    const body = reply.body || {};
    if (reply.status === 200 && Array.isArray(body.recovery_codes)) {
      showCodes(body.recovery_codes);
      return;
    }
    if (body.message === 'Invalid code') {
      setFieldError('confirm-code', 'That code is not right. Wait for the next code of your app and type it.');
      $('confirm-code').focus();
      return;
    }
    showFailure(reply, { code: 'confirm-code' });
  }

  function showCodes(codes) {
    const list = $('recovery-codes');
    list.textContent = '';
    codes.forEach((c) => {
      const li = document.createElement('li');
      li.textContent = c;
      list.appendChild(li);
    });
    if (codesUrl) URL.revokeObjectURL(codesUrl);
    codesUrl = URL.createObjectURL(new Blob([codes.join('\n') + '\n'], { type: 'text/plain' }));
    $('download').href = codesUrl;
    if (qrUrl) { URL.revokeObjectURL(qrUrl); qrUrl = ''; }
    $('qr').removeAttribute('src');
    $('secret').textContent = '';
    show('codes', 'codes-title');
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    // This page takes only its site from its address: drop anything else
    // someone added, so nothing secret lingers in the address bar or history.
    site = window.svcForm.siteOfAddress();
    window.svcForm.keepOnlySite(site);
    window.svcForm.showSite(site).then((known) => { site = known; });
    $('signin-form').addEventListener('submit', signIn);
    $('mfa-form').addEventListener('submit', secondFactor);
    $('setup').addEventListener('click', setUp);
    $('scan-form').addEventListener('submit', confirm);
    FIELDS.forEach((f) => $(f).addEventListener('input', () => setFieldError(f, '')));
    show('signin-form', 'email');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
