// The "this wasn't me" page of the new-device mail: reads the token (and
// the time, device and network the mail names, for display only) from the
// URL fragment (#token=...; never from the query string, which servers
// log) and posts the token to /auth/sessions/not-me on this origin only
// when the user presses the button. Loading the page, as a mail scanner
// does that follows every link (even one that runs the script), changes
// nothing. No cookies, no external requests, no inline script
// (nginx/snippets/svc-reset-page.conf's policy). Needs form.js before it.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  function takeFragment() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ''));
    // Keep the token out of the address bar, history and screenshots.
    if ((location.hash || location.search) && window.history && history.replaceState) {
      history.replaceState(null, '', location.pathname);
    }
    return params;
  }

  // "2026-11-27 13:42 UTC", as the mail writes it.
  function utcMinute(seconds) {
    const n = Number(seconds);
    if (!seconds || !Number.isFinite(n)) return '';
    const iso = new Date(n * 1000).toISOString();
    return iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC';
  }

  function setGeneral(message) {
    window.svcForm.setGeneral(message);
    if (message) $('general').focus();
  }

  async function submit(event, token) {
    event.preventDefault();
    setGeneral('');
    const button = $('submit');
    button.disabled = true;
    const { status, body } = await window.svcForm.postJson('/auth/sessions/not-me', { token: token });
    button.disabled = false;
    if (status === 200 && body && body.status === 'Success') {
      $('not-me-form').hidden = true;
      $('done').hidden = false;
      $('done-title').focus();
      return;
    }
    const message = body && typeof body.message === 'string' ? body.message : '';
    if (message === 'Sign-out token has expired or is invalid') {
      setGeneral('This link has expired or was used already. To be safe, reset your password from the sign-in page.');
    } else if (status === 429) {
      setGeneral('Too many attempts. Please wait a minute and try again.');
    } else {
      setGeneral(message || 'Something went wrong. Please try again later.');
    }
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    const params = takeFragment();
    const token = params.get('token') || '';
    if (!token) {
      setGeneral('This link is incomplete: open the link of the e-mail again.');
      return;
    }
    $('time').textContent = utcMinute(params.get('time')) || 'not known';
    $('device').textContent = params.get('device') || 'not known';
    $('network').textContent = params.get('network') || 'not known';
    const form = $('not-me-form');
    form.hidden = false;
    form.addEventListener('submit', (e) => submit(e, token));
    $('submit').focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
