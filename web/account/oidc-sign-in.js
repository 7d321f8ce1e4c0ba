// The OpenID Connect provider's sign-in page (web/account/oidc-sign-in.html):
// when the site has passkeys and the browser can use them, shows the passkey
// button. svc put the ceremony's options and challenge_token in the page; the
// answer (/account/passkeys.js SvcPasskeys.get) is posted with the page's
// form to /auth/oidc/passkey, which signs in and goes on to the client.
(function () {
  'use strict';

  const box = document.getElementById('passkey');
  const options = box && box.dataset.options;
  if (!options || !window.SvcPasskeys || !SvcPasskeys.supported()) return;
  const form = document.getElementById('passkey-form');
  const button = document.getElementById('passkey-button');
  const failed = document.getElementById('passkey-error');
  box.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    failed.hidden = true;
    try {
      const credential = await SvcPasskeys.get(JSON.parse(options));
      form.elements.credential.value = JSON.stringify(credential);
      form.submit();
    } catch (e) {
      failed.hidden = false;
      button.disabled = false;
    }
  });
})();
