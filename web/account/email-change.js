// The e-mail change page (issue 38): the confirmation link mailed to the new
// address and the undo link mailed to the old one both open it. It reads
// the token from the URL fragment (#token=...; never from the query string)
// and tells the two apart by the token's type (its payload's `typ`, which
// the server checks again); it posts the token to /auth/email/change/confirm
// or /undo on this origin only when the user presses the button, so a mail
// scanner that opens the link changes nothing. No cookies, no external
// requests, no inline script (nginx/snippets/svc-reset-page.conf's policy).
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  const KINDS = {
    'email-change': {
      path: '/auth/email/change/confirm',
      explain: 'Press the button to make this address the one of your account.',
      button: 'Confirm my new address',
      doneTitle: 'Your address is changed',
      doneText: 'Sign in with your new address from now on. You can close this page.',
    },
    'email-undo': {
      path: '/auth/email/change/undo',
      explain: 'Press the button to keep this address for your account. Every device is signed out; ' +
        'then choose a new password.',
      button: 'Keep my address',
      doneTitle: 'Your address is kept',
      doneText: 'Every device was signed out. Reset your password now if you did not ask for the change.',
    },
  };

  // The token's type, read from its payload (base64url JSON); '' if unreadable.
  function typeOf(token) {
    try {
      const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      return JSON.parse(atob(part)).typ || '';
    } catch (e) {
      return '';
    }
  }

  function setGeneral(message) {
    const box = $('general');
    box.textContent = message || '';
    box.hidden = !message;
    if (message) box.focus();
  }

  async function submit(event, kind, token) {
    event.preventDefault();
    setGeneral('');
    const button = $('submit');
    button.disabled = true;
    const { status, body } = await window.svcForm.postJson(kind.path, { token: token });
    button.disabled = false;
    if (status === 200 && body && body.status === 'Success') {
      $('change-form').hidden = true;
      $('done-title').textContent = kind.doneTitle;
      $('done-text').textContent = kind.doneText;
      $('done').hidden = false;
      $('done-title').focus();
      return;
    }
    const message = body && typeof body.message === 'string' ? body.message : '';
    if (message === 'Email change token has expired or is invalid') {
      setGeneral('This link has expired or was used already. Nothing was changed.');
    } else if (status === 409) {
      setGeneral('Another account uses this address now, so nothing was changed.');
    } else if (status === 429) {
      setGeneral('Too many attempts. Please wait a minute and try again.');
    } else {
      setGeneral(message || 'Nothing could be changed. Please try again later.');
    }
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    const { site, token } = window.svcForm.takeLink();
    window.svcForm.showSite(site);
    const kind = KINDS[typeOf(token)];
    if (!token || !kind) {
      setGeneral('This link is incomplete: open the link of your e-mail again.');
      return;
    }
    $('explain').textContent = kind.explain;
    $('submit').textContent = kind.button;
    const form = $('change-form');
    form.hidden = false;
    form.addEventListener('submit', (e) => submit(e, kind, token));
    $('submit').focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
