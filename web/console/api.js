// The console's one way to the management API (docs/api.md "Site
// administration"): JSON under /admin/sites/{site}/, the account token as
// Bearer. The token lives in this closure only (never in storage, a cookie
// or a URL). When a call meets a 401 (the sign-in ended, or a destructive
// change wants a recent sign-in), the page is asked to sign in again
// (onSignInNeeded, set by console.js) and the call is sent once more: what
// the page holds stays as it is.
'use strict';

window.svcApi = (function () {
  let token = '';
  let site = '';
  let onSignInNeeded = async () => false;

  // Messages of the API in words an administrator understands.
  const WORDS = {
    'Unauthorized': 'Your sign-in has ended. Please sign in again.',
    'Forbidden': 'Your role on this site may not do that.',
    'Recent sign-in required, log in again': 'For this, sign in again first (it needs a sign-in of the last 10 minutes).',
    'Second factor required for site administration': 'Site administration needs a second factor.',
    'User not found': 'No user of this site has that address.',
    'Admin not found': 'That administrator is gone already.',
    'Invalid cursor': 'The list changed: search again.',
  };

  function words(reply) {
    const body = reply.body || {};
    if (reply.status === 0) return 'The server could not be reached. Check your connection and try again.';
    if (reply.status === 429) return 'Too many requests. Please wait a moment and try again.';
    if (Array.isArray(body.errors) && body.errors.length) {
      return body.errors.map((e) => WORDS[e.message] || e.message).join(' ');
    }
    return WORDS[body.message] || body.message || 'Something went wrong. Please try again later.';
  }

  // The error of `field` in a 400 reply's `errors`, or ''.
  function fieldMessage(reply, field) {
    const errors = (reply.body && Array.isArray(reply.body.errors)) ? reply.body.errors : [];
    const hit = errors.find((e) => e.field === field);
    return hit ? WORDS[hit.message] || hit.message : '';
  }

  async function send(method, path, payload) {
    const headers = { 'Accept': 'application/json', 'Authorization': 'Bearer ' + token };
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    try {
      const resp = await fetch('/admin/sites/' + site + path, {
        method, credentials: 'omit', cache: 'no-store', headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
      });
      return { status: resp.status, body: await resp.json().catch(() => null) };
    } catch (e) {
      return { status: 0, body: null };
    }
  }

  // `method` /admin/sites/{site}{path} (query already in `path`); resolves
  // to { status, body }. A 401 asks for a sign-in again and then retries;
  // a 401 to a call sent before a sign-in that has happened since (a
  // preview on its way while the dialog was open) is retried at once.
  async function call(method, path, payload) {
    const sentWith = token;
    const reply = await send(method, path, payload);
    if (reply.status !== 401) return reply;
    if (token && token !== sentWith) return send(method, path, payload);
    const why = reply.body && reply.body.message;
    if (!(await onSignInNeeded(why))) return reply;
    return send(method, path, payload);
  }

  // A query string of the entries of `params` that are set.
  function query(params) {
    const q = new URLSearchParams();
    Object.entries(params).forEach(([k, v]) => { if (v !== undefined && v !== null && v !== '') q.set(k, v); });
    const s = q.toString();
    return s ? '?' + s : '';
  }

  return {
    call, query, words, fieldMessage,
    get: (path) => call('GET', path),
    setToken: (t) => { token = t || ''; },
    hasToken: () => !!token,
    setSite: (s) => { site = s; },
    onSignInNeeded: (f) => { onSignInNeeded = f; },
  };
})();
