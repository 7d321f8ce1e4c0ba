// The address verification page: reads the token from the URL fragment
// (#token=...; never from the query string, which servers log) and posts it
// to /auth/verify-email on this origin only when the user presses the
// button. Loading the page, as a mail scanner does that follows every link
// (even one that runs the script), spends nothing. No cookies, no external
// requests, no inline script (nginx/snippets/svc-reset-page.conf's policy).
// A link that names its site (?site=N) gets the site's name shown (form.js).
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  function setGeneral(message) {
    const box = $('general');
    box.textContent = message || '';
    box.hidden = !message;
    if (message) box.focus();
  }

  async function submit(event, token) {
    event.preventDefault();
    setGeneral('');
    const button = $('submit');
    button.disabled = true;
    const { status, body } = await window.svcForm.postJson('/auth/verify-email', { token: token });
    button.disabled = false;
    if (status === 200 && body && body.status === 'Success') {
      $('verify-form').hidden = true;
      $('done').hidden = false;
      $('done-title').focus();
      return;
    }
    const message = body && typeof body.message === 'string' ? body.message : '';
    if (message === 'Verification token has expired or is invalid') {
      setGeneral(message + '. Ask for a new confirmation e-mail and use its link.');
    } else if (status === 429) {
      setGeneral('Too many attempts. Please wait a minute and try again.');
    } else {
      setGeneral(message || 'The address could not be confirmed. Please try again later.');
    }
  }

  function start() {
    $('general').setAttribute('tabindex', '-1');
    const { site, token } = window.svcForm.takeLink();
    window.svcForm.showSite(site);
    if (!token) {
      setGeneral('This link is incomplete: open the link of your confirmation e-mail again, or ask for a new one.');
      return;
    }
    const form = $('verify-form');
    form.hidden = false;
    form.addEventListener('submit', (e) => submit(e, token));
    $('submit').focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
