// The ready reset page: reads the token from the URL fragment (#token=...;
// never from the query string, which servers log), checks the strength
// rule as the user types (the server's rule: src/auth/password/policy.cpp),
// posts to /auth/reset-pass on this origin and shows the reply's errors next
// to the fields. No cookies, no external requests, no inline script (the
// Content-Security-Policy of nginx/snippets/svc-reset-page.conf forbids it).
// A link that names its site (?site=N) gets the site's name shown (form.js).
'use strict';

(function () {
  const SPECIAL = '@$!%*?&';
  const MAX_BYTES = 1024;
  const FIELDS = ['password', 'confirmPassword'];

  // Same rule as check_strength(): length in code points, ASCII classes only,
  // and only the characters of SPECIAL count as the special one.
  function requirements(pw) {
    const r = { minLength: Array.from(pw).length >= 8, hasUpperCase: false, hasLowerCase: false,
                hasNumber: false, hasSpecialChar: false };
    for (const c of pw) {
      if (c >= 'A' && c <= 'Z') r.hasUpperCase = true;
      else if (c >= 'a' && c <= 'z') r.hasLowerCase = true;
      else if (c >= '0' && c <= '9') r.hasNumber = true;
      else if (SPECIAL.includes(c)) r.hasSpecialChar = true;
    }
    return r;
  }

  const $ = (id) => document.getElementById(id);

  // The lines marked data-server (the breached list, the site's strength
  // score: issue 41) only the server can judge: shown once a reply names
  // them, pending again while the user types.
  function showRules(r, typed) {
    document.querySelectorAll('#rules li').forEach((li) => {
      if (li.hasAttribute('data-server')) {
        const judged = typeof r[li.dataset.rule] === 'boolean';
        if (judged) li.hidden = false;
        if (!judged) {
          li.classList.remove('met', 'missing');
          li.setAttribute('aria-label', li.textContent);
          return;
        }
      }
      const ok = r[li.dataset.rule];
      li.classList.toggle('met', ok);
      li.classList.toggle('missing', typed && !ok);
      li.setAttribute('aria-label', li.textContent + (ok ? ': done' : ': missing'));
    });
  }

  const { setFieldError, setGeneral } = window.svcForm;  // form.js

  function clearErrors() {
    FIELDS.forEach((f) => setFieldError(f, ''));
    setGeneral('');
  }

  // Client-side checks with the server's messages; returns the first field in error.
  function checkLocally(pw, confirm) {
    const r = requirements(pw);
    const all = Object.values(r).every(Boolean);
    let first = null;
    if (!pw) { setFieldError('password', 'password is required'); first = 'password'; }
    else if (new TextEncoder().encode(pw).length > MAX_BYTES) {
      setFieldError('password', 'password must be at most 1024 bytes'); first = 'password';
    } else if (!all) {
      setFieldError('password', 'Password does not meet security requirements'); first = 'password';
      showRules(r, true);
    }
    if (pw !== confirm) {
      setFieldError('confirmPassword', 'Passwords do not match');
      first = first || 'confirmPassword';
    }
    return first;
  }

  // Puts a reply of /auth/reset-pass on the page; true when it succeeded.
  function showReply(status, body) {
    if (status === 200 && body && body.status === 'Success') return true;
    const message = body && typeof body.message === 'string' ? body.message : '';
    if (body && body.requirements) {
      showRules(body.requirements, true);
      setFieldError('password', message);
      $('password').focus();
    } else if (body && Array.isArray(body.errors)) {
      let focused = false;
      const other = [];
      body.errors.forEach((e) => {
        if (FIELDS.includes(e.field)) {
          setFieldError(e.field, e.message);
          if (!focused) { $(e.field).focus(); focused = true; }
        } else {
          other.push(e.message);
        }
      });
      if (other.length) setGeneral(other.join(' '));
    } else if (message === 'Reset password token has expired or is invalid') {
      setGeneral(message + '. Ask for a new reset e-mail and use its link.');
    } else if (status === 429) {
      setGeneral('Too many attempts. Please wait a minute and try again.');
    } else {
      setGeneral(message || 'The password could not be changed. Please try again later.');
    }
    if (!$('general').hidden) $('general').focus();
    return false;
  }

  async function submit(event, token) {
    event.preventDefault();
    clearErrors();
    const pw = $('password').value;
    const confirm = $('confirmPassword').value;
    const first = checkLocally(pw, confirm);
    if (first) { $(first).focus(); return; }
    const button = $('submit');
    button.disabled = true;
    let status = 0;
    let body = null;
    try {
      const resp = await fetch('/auth/reset-pass', {
        method: 'POST',
        credentials: 'omit',
        cache: 'no-store',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
        body: JSON.stringify({ password: pw, confirmPassword: confirm, reset_password_token: token }),
      });
      status = resp.status;
      body = await resp.json().catch(() => null);
    } catch (e) {
      body = { message: 'The server could not be reached. Check your connection and try again.' };
    }
    button.disabled = false;
    if (showReply(status, body)) {
      $('reset-form').hidden = true;
      $('title').hidden = true;
      $('done').hidden = false;
      $('done-title').focus();
    }
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    const { site, token } = window.svcForm.takeLink();
    window.svcForm.showSite(site);
    if (!token) {
      setGeneral('This link is incomplete: open the link of your reset e-mail again, or ask for a new one.');
      return;
    }
    const form = $('reset-form');
    form.hidden = false;
    showRules(requirements(''), false);
    $('password').addEventListener('input', () => {
      showRules(requirements($('password').value), $('password').value.length > 0);
      setFieldError('password', '');
    });
    $('confirmPassword').addEventListener('input', () => setFieldError('confirmPassword', ''));
    form.addEventListener('submit', (e) => submit(e, token));
    $('password').focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
