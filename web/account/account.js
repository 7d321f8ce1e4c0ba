// The account centre (/account/, issue 38): sign in with what the site
// allows (password, an e-mailed code or a passkey, then the second factor),
// then on one page: sessions, password, address, second factor, passkeys,
// the data export and deletion. The site comes from the address
// (/account/?site=N) and its name is shown (form.js). Issue 48: passkeys
// appear only where the site offers them (GET /auth/site) and the browser
// can use them; a forgotten password asks for a reset link; the code step
// goes back or sends a new code; sessions name the device and say when
// (devices.js), never the raw user agent. Issue 51: "Linked sign-in" lists
// the accounts at upstream providers, links one of the site's providers
// (the browser goes to the provider and ends on svc's page saying what was
// linked, which leads back here) and unlinks one.
//
// The sign-in reply's account_token (the only token svc's account routes
// take) lives in this closure only: never in storage, a cookie or a URL.
// The QR code is shown through a blob: URL (img-src 'self' blob:, as on the
// enrolment page); the export is offered as a blob: download. No inline
// script, no external requests.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const STEPS = ['signin', 'forgot-form', 'code-form', 'mfa-form', 'centre', 'deleted'];
  // The API's resend rule of sign-in codes (docs/api.md, [auth]
  // email_code_resend_seconds): inside it a request gets no new mail.
  const CODE_RESEND_MS = 60 * 1000;
  let site = '';
  let passkeys = false;  // the site offers passkeys and this browser can use them
  let codeSentAt = 0;    // Date.now() of the last code asked for
  let token = null;  // the sign-in reply's token object
  let mfaToken = '';
  let mfaOn = false;
  let qrUrl = '';
  let exportUrl = '';
  let renaming = null;  // the passkey the rename form names

  // Messages of the API in words a user understands.
  const WORDS = {
    'Invalid credentials': 'That password is not right.',
    'Invalid code': 'That code is not right. Try the newest code of your app.',
    'Invalid or expired code': 'That code is not right or has expired. Ask for a new one.',
    'User with this email already exists': 'Another account already uses this address.',
    'Passwords do not match': 'The two new passwords are not the same.',
    'Email not verified': 'Confirm your e-mail address first: follow the link we sent you.',
    'Recent sign-in required, log in again': 'For this, sign out and sign in again first.',
    'Unauthorized': 'Your sign-in has expired. Please sign in again.',
    'Too many attempts': 'Too many attempts. Please wait a few minutes and try again.',
    'Two-factor authentication is already enabled': 'Two-factor authentication is already on.',
    'Two-factor authentication is not enabled': 'Two-factor authentication is off.',
    'Passkey not found': 'That passkey no longer exists.',
    'name is required': 'Type a name.',
    'name is too long': 'That name is too long.',
    'name must not contain control characters': 'Use letters, digits, spaces and punctuation only.',
    'Passkeys are not configured for this site: rp_id is not set': 'This site does not offer passkeys.',
    'No such provider': 'This site no longer offers that provider.',
    'No such linked account': 'That account is no longer linked.',
  };

  // The password requirements of a weak-password reply, as the reset page
  // lists them; the last two only when the server judged them (issue 41:
  // the breached list, the site's minimum strength score).
  const REQUIREMENTS = {
    minLength: 'at least 8 characters',
    hasUpperCase: 'an upper-case letter (A–Z)',
    hasLowerCase: 'a lower-case letter (a–z)',
    hasNumber: 'a digit (0–9)',
    hasSpecialChar: 'one of @ $ ! % * ? &',
    notBreached: 'not in a list of leaked passwords',
    strongEnough: 'hard enough to guess (not a common word, name or pattern)',
  };

  function missingRequirements(requirements) {
    return Object.keys(REQUIREMENTS).filter((k) => requirements[k] === false).map((k) => REQUIREMENTS[k]);
  }

  function words(reply) {
    const body = reply.body || {};
    if (reply.status === 0) return 'The server could not be reached. Check your connection and try again.';
    if (reply.status === 429) return WORDS['Too many attempts'];
    if (Array.isArray(body.errors) && body.errors.length) {
      return body.errors.map((e) => WORDS[e.message] || e.message).join(' ');
    }
    if (body.requirements) {
      const missing = missingRequirements(body.requirements);
      return 'The new password is too weak. It needs: ' + (missing.length ? missing.join('; ') : body.message) + '.';
    }
    return WORDS[body.message] || body.message || 'Something went wrong. Please try again later.';
  }

  function show(step, focusId) {
    STEPS.forEach((s) => { $(s).hidden = s !== step; });
    const target = $(focusId || step);
    if (target) target.focus();
  }

  function general(message) {
    window.svcForm.setGeneral(message);
    if (message) $('general').focus();
  }

  // A section's outcome: `message` in its status line, as an error when `bad`.
  function status(id, message, bad) {
    const line = $(id);
    line.textContent = message || '';
    line.classList.toggle('bad', !!bad);
  }

  function fieldError(id, message) {
    window.svcForm.setFieldError(id, message);
    if (message) $(id).focus();
  }

  const post = window.svcForm.postJson;  // form.js

  // An account route with the account token (and the browser's cookies when
  // `withCookies`); a 401 Unauthorized (the sign-in ended) sends the user
  // back to the sign-in.
  async function account(path, payload, withCookies) {
    const reply = await post(path, payload, token && token.account_token, withCookies);
    if (reply.status === 401 && reply.body && reply.body.message === 'Unauthorized') {
      token = null;
      show('signin', 'email');
      general(WORDS.Unauthorized);
    }
    return reply;
  }

  // Disables `button` (an element or its id) while `work` runs.
  async function busy(button, work) {
    const element = typeof button === 'string' ? $(button) : button;
    element.disabled = true;
    try { return await work(); } finally { element.disabled = false; }
  }

  function withSite(payload) {
    if (site) payload.appID = site;
    return payload;
  }

  // --- signing in --------------------------------------------------------

  function afterSignIn(reply) {
    const body = reply.body || {};
    if (reply.status === 200 && body.token) {
      token = body.token;
      mfaToken = '';
      ['password', 'email-code', 'mfa-code'].forEach((f) => { $(f).value = ''; });
      $('who').textContent = (token.user && token.user.email) || $('email').value;
      general('');
      show('centre', 'who');
      refreshAll();
      return;
    }
    if (reply.status === 401 && typeof body.mfa_token === 'string') {
      mfaToken = body.mfa_token;
      mfaOn = true;
      $('mfa-passkey').hidden = !(passkeys && Array.isArray(body.methods) && body.methods.includes('passkey'));
      general('');
      show('mfa-form', 'mfa-code');
      return;
    }
    general(words(reply));
  }

  async function signInPassword(event) {
    event.preventDefault();
    general('');
    const email = $('email').value.trim();
    if (!email) return fieldError('email', 'Type your e-mail address.');
    if (!$('password').value) return fieldError('password', 'Type your password.');
    mfaOn = false;
    afterSignIn(await busy('signin-password', () =>
      post('/auth/login', withSite({ email, password: $('password').value }))));
  }

  async function askCode() {
    general('');
    const email = $('email').value.trim();
    if (!email) return fieldError('email', 'Type your e-mail address first.');
    if (!site) return general('Sign-in codes need the site: open this page from the site\'s link.');
    const reply = await busy('signin-code', () => post('/auth/email-code', { email, appID: site }));
    if (reply.status !== 200) return general(words(reply));
    codeSentAt = Date.now();
    status('code-status', '');
    show('code-form', 'email-code');
  }

  // "Send a new code": inside the API's resend time a request would mail
  // nothing, so the page says so instead of pretending.
  async function askCodeAgain() {
    window.svcForm.setFieldError('email-code', '');
    if (Date.now() - codeSentAt < CODE_RESEND_MS) {
      return status('code-status', 'We sent a code less than a minute ago: give it a moment, and check your spam ' +
                    'folder. You can ask for a new code after a minute.');
    }
    const email = $('email').value.trim();
    const reply = await busy('code-again', () => post('/auth/email-code', { email, appID: site }));
    if (reply.status !== 200) return status('code-status', words(reply), true);
    codeSentAt = Date.now();
    $('email-code').value = '';
    status('code-status', 'A new code is on its way to ' + email + '. Only the newest code works.');
    $('email-code').focus();
  }

  function backToSignIn() {
    general('');
    show('signin', 'email');
  }

  // --- a forgotten password -------------------------------------------------

  function startForgot() {
    general('');
    window.svcForm.setFieldError('forgot-email', '');
    status('forgot-status', '');
    $('forgot-email').value = $('email').value.trim();
    show('forgot-form', 'forgot-email');
  }

  // POST /auth/request-pass: the same reply whether or not the address has
  // an account, so the page says "if".
  async function requestReset(event) {
    event.preventDefault();
    window.svcForm.setFieldError('forgot-email', '');
    const email = $('forgot-email').value.trim();
    if (!email) return fieldError('forgot-email', 'Type your e-mail address.');
    const reply = await busy('forgot-submit', () => post('/auth/request-pass', withSite({ email })));
    if (reply.status !== 200) return status('forgot-status', words(reply), true);
    status('forgot-status', 'If ' + email + ' has an account here, we sent it a link to choose a new password. ' +
           'Open it on this device or another.');
  }

  async function signInCode(event) {
    event.preventDefault();
    const code = $('email-code').value.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(code)) return fieldError('email-code', 'Type the 6 digits of the e-mail.');
    mfaOn = false;
    afterSignIn(await busy('code-submit', () =>
      post('/auth/email-code/verify', { email: $('email').value.trim(), code, appID: site })));
  }

  async function signInPasskey() {
    general('');
    if (!site) return general('Passkeys need the site: open this page from the site\'s link.');
    try {
      const email = $('email').value.trim();
      const body = await window.SvcPasskeys.signIn(email ? { appID: site, email } : { appID: site });
      mfaOn = false;
      afterSignIn({ status: body.status === 'Success' ? 200 : 400, body });
    } catch (e) {
      general('The passkey was not used. Try again, or sign in with your password.');
    }
  }

  async function secondFactor(event) {
    event.preventDefault();
    const typed = $('mfa-code').value.trim();
    if (!typed) return fieldError('mfa-code', 'Type a code.');
    const digits = typed.replace(/\s+/g, '');
    const payload = /^[0-9]{6}$/.test(digits) ? { mfa_token: mfaToken, code: digits }
                                              : { mfa_token: mfaToken, recovery_code: typed };
    const reply = await busy('mfa-submit', () => post('/auth/mfa/verify', payload));
    if (reply.body && reply.body.message === 'Second factor expired, log in again') {
      show('signin', 'password');
      return general('That took too long or too many tries. Please sign in again.');
    }
    if (reply.status !== 200) return fieldError('mfa-code', words(reply));
    afterSignIn(reply);
  }

  async function secondFactorPasskey() {
    try {
      const body = await window.SvcPasskeys.secondFactor(mfaToken);
      afterSignIn({ status: body.status === 'Success' ? 200 : 400, body });
    } catch (e) {
      general('The passkey was not used. Type a code instead.');
    }
  }

  async function signOut() {
    await post('/auth/sign-out', {}, token && token.access_token);
    token = null;
    show('signin', 'email');
  }

  // --- the centre --------------------------------------------------------

  function refreshAll() {
    endRename();
    loadSessions();
    if (passkeys) loadPasskeys();
    loadIdentities();
    showFactor();
  }

  const when = (seconds) => window.svcDevices.ago(seconds);  // devices.js

  // One line of a list: `text`, an optional badge `note`, then a button per
  // [label, onClick(button), name for assistive technology] of `actions`.
  function row(list, text, note, actions) {
    const li = document.createElement('li');
    const span = document.createElement('span');
    span.textContent = text;
    li.appendChild(span);
    if (note) {
      const mark = document.createElement('strong');
      mark.className = 'badge';
      mark.textContent = note;
      li.appendChild(mark);
    }
    actions.forEach(([label, onClick, spoken]) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary small';
      button.textContent = label;
      if (spoken) button.setAttribute('aria-label', spoken);
      button.addEventListener('click', () => onClick(button));
      li.appendChild(button);
    });
    list.appendChild(li);
  }

  async function loadSessions() {
    const reply = await account('/auth/sessions', null);
    const list = $('sessions');
    list.textContent = '';
    if (reply.status !== 200) return status('sessions-status', words(reply), true);
    reply.body.sessions.forEach((s) => {
      const text = window.svcDevices.name(s.user_agent) + ' — ' + (s.ip || 'unknown network') + ', signed in ' +
        when(s.created_at) + ', last active ' + when(s.last_seen_at || s.created_at);
      row(list, text, s.current ? 'This device' : '', s.current ? [] : [['Sign out', async (button) => {
        const ended = await busy(button, () =>
          account('/auth/sessions/revoke', { id: s.id }));
        status('sessions-status', ended.status === 200 ? 'That device is signed out.' : words(ended),
               ended.status !== 200);
        loadSessions();
      }]]);
    });
  }

  async function signOutOthers() {
    await busy('sign-out-others', () => post('/auth/sign-out', { scope: 'others' }, token.access_token));
    status('sessions-status', 'Every other device is signed out.');
    loadSessions();
  }

  async function changePassword(event) {
    event.preventDefault();
    ['pw-current', 'pw-new', 'pw-confirm'].forEach((f) => window.svcForm.setFieldError(f, ''));
    status('pw-status', '');
    if (!$('pw-current').value) return fieldError('pw-current', 'Type your current password.');
    if (!$('pw-new').value) return fieldError('pw-new', 'Type a new password.');
    if ($('pw-new').value !== $('pw-confirm').value) return fieldError('pw-confirm', WORDS['Passwords do not match']);
    const reply = await busy('pw-submit', () => account('/auth/password/change', {
      current_password: $('pw-current').value, password: $('pw-new').value, confirmPassword: $('pw-confirm').value,
    }));
    if (reply.status === 200) {
      ['pw-current', 'pw-new', 'pw-confirm'].forEach((f) => { $(f).value = ''; });
      status('pw-status', 'Your password is changed. Your other devices are signed out.');
      loadSessions();
      return;
    }
    if (reply.body && reply.body.message === 'Invalid credentials') return fieldError('pw-current', words(reply));
    status('pw-status', words(reply), true);
  }

  async function changeEmail(event) {
    event.preventDefault();
    ['mail-new', 'mail-password'].forEach((f) => window.svcForm.setFieldError(f, ''));
    status('mail-status', '');
    if (!$('mail-new').value.trim()) return fieldError('mail-new', 'Type the new address.');
    if (!$('mail-password').value) return fieldError('mail-password', 'Type your password.');
    const reply = await busy('mail-submit', () => account('/auth/email/change', {
      new_email: $('mail-new').value.trim(), password: $('mail-password').value,
    }));
    $('mail-password').value = '';
    if (reply.status === 200) {
      status('mail-status', 'We sent a link to ' + $('mail-new').value.trim() +
             '. Your address changes when you open it and press its button.');
      return;
    }
    if (reply.body && reply.body.message === 'Invalid credentials') return fieldError('mail-password', words(reply));
    status('mail-status', words(reply), true);
  }

  function showFactor() {
    $('tfa-state').textContent = mfaOn ? 'On: signing in asks for a code of your authenticator app.'
                                       : 'Off: signing in asks only for your password.';
    $('tfa-on').hidden = mfaOn;
    $('tfa-manage').hidden = !mfaOn;
    $('tfa-scan').hidden = true;
  }

  async function turnOn() {
    status('tfa-status', '');
    const reply = await busy('tfa-on', () => account('/auth/mfa/totp/setup', null));
    if (reply.status === 409) {
      // On already (a passkey sign-in skips the second step, so the page
      // could not know): show the controls of a factor that is on.
      mfaOn = true;
      showFactor();
      return status('tfa-status', words(reply));
    }
    if (reply.status !== 200) return status('tfa-status', words(reply), true);
    if (qrUrl) URL.revokeObjectURL(qrUrl);
    qrUrl = URL.createObjectURL(new Blob([reply.body.qr_svg], { type: 'image/svg+xml' }));
    $('qr').src = qrUrl;
    $('secret').textContent = reply.body.secret.replace(/(.{4})(?=.)/g, '$1 ');
    $('tfa-on').hidden = true;
    $('tfa-scan').hidden = false;
    $('tfa-confirm-code').focus();
  }

  function showCodes(codes) {
    const list = $('recovery-codes');
    list.textContent = '';
    codes.forEach((c) => { const li = document.createElement('li'); li.textContent = c; list.appendChild(li); });
    $('tfa-recovery').hidden = false;
  }

  async function confirmOn(event) {
    event.preventDefault();
    const code = $('tfa-confirm-code').value.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(code)) return fieldError('tfa-confirm-code', 'Type the 6 digits your app shows.');
    const reply = await busy('tfa-confirm', () => account('/auth/mfa/totp/confirm', { code }));
    if (reply.status !== 200) return fieldError('tfa-confirm-code', words(reply));
    mfaOn = true;
    if (qrUrl) { URL.revokeObjectURL(qrUrl); qrUrl = ''; }
    $('qr').removeAttribute('src');
    showFactor();
    showCodes(reply.body.recovery_codes);
    status('tfa-status', 'Two-factor authentication is on. Your other devices are signed out.');
  }

  // The answer of the manage form: a 6-digit code, else the password.
  function proof() {
    const typed = $('tfa-code').value.trim();
    return /^[0-9]{6}$/.test(typed.replace(/\s+/g, '')) ? { code: typed.replace(/\s+/g, '') } : { password: typed };
  }

  async function turnOff(event) {
    event.preventDefault();
    if (!$('tfa-code').value.trim()) return fieldError('tfa-code', 'Type a code of your app, or your password.');
    const reply = await busy('tfa-off', () => account('/auth/mfa/disable', proof()));
    $('tfa-code').value = '';
    if (reply.status !== 200) return fieldError('tfa-code', words(reply));
    mfaOn = false;
    $('tfa-recovery').hidden = true;
    showFactor();
    status('tfa-status', 'Two-factor authentication is off. Your other devices are signed out.');
  }

  async function newCodes() {
    const answer = proof();
    if (!answer.code) return fieldError('tfa-code', 'Type a code of your app.');
    const reply = await busy('tfa-codes', () => account('/auth/mfa/recovery-codes', answer));
    $('tfa-code').value = '';
    if (reply.status !== 200) return fieldError('tfa-code', words(reply));
    showCodes(reply.body.recovery_codes);
    status('tfa-status', 'New recovery codes are made; the earlier ones no longer work.');
  }

  async function loadPasskeys() {
    const list = $('passkeys');
    list.textContent = '';
    if (!site) { status('pk-status', 'Passkeys need the site: open this page from the site\'s link.'); return; }
    const reply = await account('/auth/passkey/list', null);
    if (reply.status !== 200) return status('pk-status', words(reply), true);
    if (!reply.body.passkeys.length) row(list, 'No passkeys yet.', '', []);
    reply.body.passkeys.forEach((p) => {
      row(list, (p.name || 'Passkey') + ', added ' + when(p.created_at), '', [
        ['Rename', () => startRename(p)],
        ['Remove', async (button) => {
          const removed = await busy(button, () => account('/auth/passkey/delete', { id: p.id }));
          status('pk-status', removed.status === 200 ? 'The passkey is removed.' : words(removed),
                 removed.status !== 200);
          loadPasskeys();
        }],
      ]);
    });
  }

  function startRename(passkey) {
    renaming = passkey;
    status('pk-status', '');
    window.svcForm.setFieldError('pk-rename-name', '');
    $('pk-rename-old').textContent = passkey.name || 'Passkey';
    $('pk-rename-name').value = passkey.name || '';
    $('pk-rename-form').hidden = false;
    $('pk-rename-name').focus();
  }

  function endRename() {
    renaming = null;
    $('pk-rename-form').hidden = true;
  }

  async function renamePasskey(event) {
    event.preventDefault();
    const name = $('pk-rename-name').value.trim();
    if (!name) return fieldError('pk-rename-name', WORDS['name is required']);
    const reply = await busy('pk-rename-save', () => account('/auth/passkey/rename', { id: renaming.id, name }));
    if (reply.status !== 200) return fieldError('pk-rename-name', words(reply));
    endRename();
    status('pk-status', 'The passkey is renamed.');
    loadPasskeys();
  }

  async function addPasskey(event) {
    event.preventDefault();
    status('pk-status', '');
    try {
      const body = await window.SvcPasskeys.register(token.account_token, $('pk-name').value.trim() || undefined);
      if (body.status !== 'Success') return status('pk-status', words({ status: 400, body }), true);
      $('pk-name').value = '';
      status('pk-status', 'The passkey is added.');
      loadPasskeys();
    } catch (e) {
      status('pk-status', 'No passkey was added.', true);
    }
  }

  // A provider's name as its buttons say it ("google" -> "Google").
  const providerName = (name) => name.charAt(0).toUpperCase() + name.slice(1);

  // "Linked sign-in": the user's accounts at the site's providers (POST
  // /auth/upstream/identities), each with Unlink, and a Link button per
  // provider of the site. The section shows when either list has something.
  async function loadIdentities() {
    const list = $('identities');
    const links = $('up-links');
    const reply = await account('/auth/upstream/identities', null);
    list.textContent = '';
    links.textContent = '';
    if (reply.status !== 200) {
      $('up-section').hidden = false;
      return status('up-status', words(reply), true);
    }
    const identities = reply.body.identities || [];
    const providers = reply.body.providers || [];
    $('up-section').hidden = !identities.length && !providers.length;
    if (!identities.length) row(list, 'No linked accounts yet.', '', []);
    identities.forEach((i) => {
      const what = providerName(i.provider) + (i.email ? ' (' + i.email + ')' : '');
      row(list, what + ', linked ' + when(i.created_at), '', [['Unlink', async (button) => {
        const done = await busy(button, () => account('/auth/upstream/unlink', { id: i.id }));
        status('up-status', done.status === 200 ? 'Your ' + what + ' account is unlinked.' : words(done),
               done.status !== 200);
        if (done.status === 200) loadIdentities();
      }, 'Unlink ' + what]]);
    });
    providers.forEach((name) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.textContent = 'Link your ' + providerName(name) + ' account';
      button.addEventListener('click', () => linkProvider(name, button));
      links.appendChild(button);
    });
  }

  // Starts a link at the provider: svc binds the flow to this browser (its
  // cookie, hence withCookies) and to the signed-in user, and gives the
  // provider's address to go to.
  async function linkProvider(name, button) {
    status('up-status', '');
    const reply = await busy(button, () => account('/auth/upstream/link', { provider: name }, true));
    if (reply.status !== 200 || !reply.body || typeof reply.body.url !== 'string') {
      return status('up-status', words(reply), true);
    }
    status('up-status', 'Taking you to ' + providerName(name) + '…');
    window.location.assign(reply.body.url);
  }

  async function exportData() {
    const reply = await busy('export', () => account('/auth/account/export', null));
    if (reply.status !== 200) return status('data-status', words(reply), true);
    if (exportUrl) URL.revokeObjectURL(exportUrl);
    exportUrl = URL.createObjectURL(new Blob([JSON.stringify(reply.body.account, null, 2)],
                                             { type: 'application/json' }));
    const link = $('export-link');
    link.href = exportUrl;
    link.hidden = false;
    link.click();
    status('data-status', 'Your data is downloaded as my-account.json.');
  }

  async function deleteAccount(event) {
    event.preventDefault();
    ['del-confirm', 'del-password'].forEach((f) => window.svcForm.setFieldError(f, ''));
    if ($('del-confirm').value.trim() !== 'DELETE') return fieldError('del-confirm', 'Type DELETE in capitals.');
    const typed = $('del-password').value.trim();
    if (!typed) return fieldError('del-password', 'Type your password or a code of your app.');
    const answer = /^[0-9]{6}$/.test(typed) && mfaOn ? { code: typed } : { password: $('del-password').value };
    const reply = await busy('del-submit', () => account('/auth/account/delete', answer));
    $('del-password').value = '';
    if (reply.status !== 200) return fieldError('del-password', words(reply));
    token = null;
    show('deleted', 'deleted-title');
  }

  // The site's details (GET /auth/site, form.js): its passkey parts show
  // only when it has a relying party and the browser speaks WebAuthn.
  function offerPasskeys(details) {
    passkeys = !!details.passkeys && window.SvcPasskeys.supported();
    $('signin-passkey').hidden = !passkeys;
    $('pk-section').hidden = !passkeys;
    if (passkeys && token) loadPasskeys();
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    site = window.svcForm.siteOfAddress();
    window.svcForm.keepOnlySite(site);
    window.svcForm.showSite(site, offerPasskeys).then((known) => { site = known; });
    $('signin-form').addEventListener('submit', signInPassword);
    $('signin-code').addEventListener('click', askCode);
    $('forgot').addEventListener('click', startForgot);
    $('forgot-form').addEventListener('submit', requestReset);
    $('forgot-back').addEventListener('click', backToSignIn);
    $('code-again').addEventListener('click', askCodeAgain);
    $('code-back').addEventListener('click', backToSignIn);
    $('signin-passkey').addEventListener('click', signInPasskey);
    $('code-form').addEventListener('submit', signInCode);
    $('mfa-form').addEventListener('submit', secondFactor);
    $('mfa-passkey').addEventListener('click', secondFactorPasskey);
    $('sign-out').addEventListener('click', signOut);
    $('sign-out-others').addEventListener('click', signOutOthers);
    $('pw-form').addEventListener('submit', changePassword);
    $('mail-form').addEventListener('submit', changeEmail);
    $('tfa-on').addEventListener('click', turnOn);
    $('tfa-scan').addEventListener('submit', confirmOn);
    $('tfa-manage').addEventListener('submit', turnOff);
    $('tfa-codes').addEventListener('click', newCodes);
    $('pk-form').addEventListener('submit', addPasskey);
    $('pk-rename-form').addEventListener('submit', renamePasskey);
    $('pk-rename-cancel').addEventListener('click', endRename);
    $('export').addEventListener('click', exportData);
    $('del-form').addEventListener('submit', deleteAccount);
    show('signin', 'email');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
