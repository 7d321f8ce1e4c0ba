// svc passkeys for a site's own pages (docs/api.md "Passkeys"): register a
// passkey for a signed-in user, sign in with one (with or without an
// e-mail), or answer the login's second step with one. No dependencies; the
// WebAuthn Level 3 JSON forms pass straight between the API and the browser
// (PublicKeyCredential.parseCreationOptionsFromJSON, credential.toJSON()).
//
//   <script src="/account/passkeys.js"></script>   (data-api="/prefix" when the site's nginx forwards
//                                                  the API under a prefix; svc sends no CORS headers,
//                                                  so the API must be on the page's own origin)
//   const reply = await SvcPasskeys.signIn({ appID: 1 });       // or { appID: 1, email }
//   if (reply.status === 'Success') useTokens(reply.token);     // the login reply
//   await SvcPasskeys.register(token.account_token, 'My laptop'); // signed in less than 10 minutes ago
//   await SvcPasskeys.secondFactor(mfaToken);                   // after "Second factor required"
//
// register, list and remove take the sign-in reply's `account_token`, never
// its access_token: svc's account routes refuse a token whose audience is a
// site's backend (docs/api.md "Account tokens"). Keep it in the page.
//
// Every function resolves to the API's JSON reply ({"status":"Success",...}
// or {"status":"Failed","message":...}); a ceremony the user cancels rejects
// with the browser's DOMException (NotAllowedError).
(function () {
  'use strict';

  const script = document.currentScript;
  const api = (script && script.dataset.api) || '';

  async function call(path, body, accountToken) {
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (accountToken) headers.Authorization = 'Bearer ' + accountToken;
    const response = await fetch(api + path, {
      method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit', cache: 'no-store',
    });
    return response.json();
  }

  async function create(options) {
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options);
    return (await navigator.credentials.create({ publicKey })).toJSON();
  }

  async function get(options) {
    const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
    return (await navigator.credentials.get({ publicKey })).toJSON();
  }

  async function register(accountToken, name) {
    const start = await call('/auth/passkey/register/options', undefined, accountToken);
    if (start.status !== 'Success') return start;
    const credential = await create(start.options);
    return call('/auth/passkey/register', { challenge_token: start.challenge_token, credential, name }, accountToken);
  }

  async function answer(request) {
    const start = await call('/auth/passkey/login/options', request);
    if (start.status !== 'Success') return start;
    const credential = await get(start.options);
    return call('/auth/passkey/login', { challenge_token: start.challenge_token, credential });
  }

  window.SvcPasskeys = {
    supported: () => typeof PublicKeyCredential === 'function' &&
      typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function',
    register,
    signIn: ({ appID, email }) => answer(email ? { appID, email } : { appID }),
    secondFactor: (mfaToken) => answer({ mfa_token: mfaToken }),
    list: (accountToken) => call('/auth/passkey/list', undefined, accountToken),
    remove: (accountToken, id) => call('/auth/passkey/delete', { id }, accountToken),
    create,
    get,
  };
})();
