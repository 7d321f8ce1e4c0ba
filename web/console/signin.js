// The console's sign-in (as in the account centre, web/account/account.js):
// the password or an e-mailed code or a passkey, then the second factor (a
// code of the authenticator app, a recovery code or a passkey). The sign-in
// reply's token object goes to `onToken` (console.js) and nowhere else.
// The same forms serve the first sign-in and a sign-in again over the page
// (the #signin-panel node moves into the dialog).
'use strict';

window.svcSignIn = (function () {
  const $ = (id) => document.getElementById(id);
  const form = window.svcForm;  // /account/form.js
  const STEPS = ['signin', 'code-form', 'mfa-form'];
  let site = '';
  let passkeys = false;
  let mfaToken = '';
  let onToken = () => {};

  const WORDS = {
    'Invalid credentials': 'That address and password do not match.',
    'Invalid code': 'That code is not right. Try the newest code of your app.',
    'Invalid or expired code': 'That code is not right or has expired. Ask for a new one.',
    'Email not verified': 'Confirm your e-mail address first: follow the link we sent you.',
    'Too many attempts': 'Too many attempts. Please wait a few minutes and try again.',
  };

  function words(reply) {
    if (reply.status === 0) return 'The server could not be reached. Check your connection and try again.';
    if (reply.status === 429) return WORDS['Too many attempts'];
    const body = reply.body || {};
    if (Array.isArray(body.errors) && body.errors.length) return body.errors.map((e) => e.message).join(' ');
    return WORDS[body.message] || body.message || 'Something went wrong. Please try again later.';
  }

  function show(step, focusId) {
    STEPS.forEach((s) => { $(s).hidden = s !== step; });
    const target = $(focusId || step);
    if (target) target.focus();
  }

  function say(message) { window.svcUi.status($('signin-status'), message, true); }

  function fieldError(id, message) {
    form.setFieldError(id, message);
    if (message) $(id).focus();
  }

  function clearErrors() {
    ['email', 'password', 'email-code', 'mfa-code'].forEach((f) => form.setFieldError(f, ''));
    say('');
  }

  const busy = (id, work) => window.svcUi.busy($(id), work);

  // A reply of a first factor or of the second: a token ends the sign-in; a
  // challenge asks for the second factor.
  function answered(reply) {
    const body = reply.body || {};
    if (reply.status === 200 && body.token) {
      mfaToken = '';
      ['password', 'email-code', 'mfa-code'].forEach((f) => { $(f).value = ''; });
      show('signin', 'email');
      onToken(body.token);
      return;
    }
    if (reply.status === 401 && typeof body.mfa_token === 'string') {
      mfaToken = body.mfa_token;
      $('mfa-passkey').hidden = !(passkeys && Array.isArray(body.methods) && body.methods.includes('passkey'));
      show('mfa-form', 'mfa-code');
      return;
    }
    show('signin');
    say(words(reply));
  }

  async function withPassword(event) {
    event.preventDefault();
    clearErrors();
    const email = $('email').value.trim();
    if (!email) return fieldError('email', 'Type your e-mail address.');
    if (!$('password').value) return fieldError('password', 'Type your password.');
    const reply = await busy('signin-password', () =>
      form.postJson('/auth/login', { email, password: $('password').value, appID: site }));
    if (reply.body && reply.body.message === 'Invalid credentials') {
      return fieldError('password', words(reply));
    }
    answered(reply);
  }

  async function askCode() {
    clearErrors();
    const email = $('email').value.trim();
    if (!email) return fieldError('email', 'Type your e-mail address first.');
    const reply = await busy('signin-code', () => form.postJson('/auth/email-code', { email, appID: site }));
    if (reply.status !== 200) return say(words(reply));
    show('code-form', 'email-code');
  }

  async function withCode(event) {
    event.preventDefault();
    form.setFieldError('email-code', '');
    const code = $('email-code').value.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(code)) return fieldError('email-code', 'Type the 6 digits of the e-mail.');
    const reply = await busy('code-submit', () =>
      form.postJson('/auth/email-code/verify', { email: $('email').value.trim(), code, appID: site }));
    if (reply.status !== 200 && !(reply.body && reply.body.mfa_token)) return fieldError('email-code', words(reply));
    answered(reply);
  }

  async function withPasskey() {
    clearErrors();
    try {
      const email = $('email').value.trim();
      const body = await window.SvcPasskeys.signIn(email ? { appID: site, email } : { appID: site });
      answered({ status: body.status === 'Success' ? 200 : 400, body });
    } catch (e) {
      say('The passkey was not used. Try again, or sign in with your password.');
    }
  }

  async function secondFactor(event) {
    event.preventDefault();
    form.setFieldError('mfa-code', '');
    const typed = $('mfa-code').value.trim();
    if (!typed) return fieldError('mfa-code', 'Type a code.');
    const digits = typed.replace(/\s+/g, '');
    const payload = /^[0-9]{6}$/.test(digits) ? { mfa_token: mfaToken, code: digits }
                                              : { mfa_token: mfaToken, recovery_code: typed };
    const reply = await busy('mfa-submit', () => form.postJson('/auth/mfa/verify', payload));
    if (reply.body && reply.body.message === 'Second factor expired, log in again') {
      show('signin', 'password');
      return say('That took too long or too many tries. Please sign in again.');
    }
    if (reply.status !== 200) return fieldError('mfa-code', words(reply));
    answered(reply);
  }

  async function secondFactorPasskey() {
    try {
      const body = await window.SvcPasskeys.secondFactor(mfaToken);
      answered({ status: body.status === 'Success' ? 200 : 400, body });
    } catch (e) {
      fieldError('mfa-code', 'The passkey was not used. Type a code instead.');
    }
  }

  function back() {
    clearErrors();
    show('signin', 'email');
  }

  // `siteId`: the site signed in to; `details`: GET /auth/site's site
  // object (passkeys offered) or null; `tokenHandler(token)`.
  function init(siteId, details, tokenHandler) {
    site = siteId;
    onToken = tokenHandler;
    passkeys = !!(details && details.passkeys) && window.SvcPasskeys.supported();
    $('signin-passkey').hidden = !passkeys;
    $('signin-form').addEventListener('submit', withPassword);
    $('signin-code').addEventListener('click', askCode);
    $('code-form').addEventListener('submit', withCode);
    $('code-back').addEventListener('click', back);
    $('signin-passkey').addEventListener('click', withPasskey);
    $('mfa-form').addEventListener('submit', secondFactor);
    $('mfa-passkey').addEventListener('click', secondFactorPasskey);
    $('mfa-back').addEventListener('click', back);
  }

  // Back to the first step with `email` filled in (the focus on the
  // password then), or an empty form.
  function restart(email) {
    clearErrors();
    $('email').value = email || '';
    $('password').value = '';
    show('signin', email ? 'password' : 'email');
  }

  return { init, restart };
})();
