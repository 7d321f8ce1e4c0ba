// What the ready pages' scripts share (reset.js, verify.js, account.js,
// email-change.js, not-me.js): an error next to a field, the page's alert, the site the
// page's address names and a JSON POST. Loaded before them (all deferred, so
// in document order); no inline script, no external requests.
'use strict';

window.svcForm = (function () {
  const $ = (id) => document.getElementById(id);

  // Shows `message` under the field `name` (the element `name`-error) and
  // marks the field invalid; '' clears both.
  function setFieldError(name, message) {
    const input = $(name);
    const out = $(name + '-error');
    out.textContent = message || '';
    out.hidden = !message;
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  // Shows `message` in the page's alert (#general); '' hides it.
  function setGeneral(message) {
    const box = $('general');
    box.textContent = message || '';
    box.hidden = !message;
  }

  // The site the address names ("?site=N", the number as a string), or ''.
  // nginx serves the pages with no other query (svc-reset-page.conf).
  function siteOfAddress() {
    const site = new URLSearchParams(location.search).get('site') || '';
    return /^[1-9][0-9]{0,17}$/.test(site) ? site : '';
  }

  // The address to leave in the bar: the page and its site, nothing else
  // (no token, no fragment). Replaces the current entry when it differs.
  function keepOnlySite(site) {
    const clean = location.pathname + (site ? '?site=' + site : '');
    if (location.pathname + location.search + location.hash !== clean && window.history && history.replaceState) {
      history.replaceState(null, '', clean);
    }
  }

  // What a mailed link gives the page: its site and the token of its
  // fragment (#token=…). Only the fragment counts: a token in the query
  // string has been sent to (and perhaps logged by) every server and proxy on
  // the way, so a link that carries one is treated as incomplete rather than
  // honoured. The token leaves the address bar, history and screenshots.
  function takeLink() {
    const site = siteOfAddress();
    const token = new URLSearchParams(location.hash.replace(/^#/, '')).get('token') || '';
    keepOnlySite(site);
    return { site, token };
  }

  // Asks the server for the site's name (GET /auth/site) and shows it in
  // #site-name, revealing #site. Resolves to the site to sign in to: `site`
  // itself, or '' when the server knows no such active site (404: the page
  // then works as one opened without a site, and the address drops it).
  // When the name cannot be had (no connection, a 5xx) the site stays and no
  // name is shown. `onSite`, when given, gets the reply's site object (id,
  // name, passkeys, access_tokens) once it is known.
  async function showSite(site, onSite) {
    if (!site) return '';
    try {
      const resp = await fetch('/auth/site?site=' + site, {
        credentials: 'omit', cache: 'no-store', headers: { 'Accept': 'application/json' },
      });
      // Read to the end whatever the status: an unread body keeps the request open.
      const body = await resp.json().catch(() => null);
      if (resp.status === 404) {
        keepOnlySite('');
        return '';
      }
      const name = resp.ok && body && body.site && typeof body.site.name === 'string' ? body.site.name.trim() : '';
      if (name) {
        $('site-name').textContent = name;
        $('site').hidden = false;
      }
      if (name && onSite) onSite(body.site);
    } catch (e) {
      // The name is a courtesy: the page works without it.
    }
    return site;
  }

  // POSTs `payload` as JSON to `path` on this origin (no cookies unless
  // `withCookies`, no cache; payload null: no body), with `Authorization:
  // Bearer <bearer>` when one is given. Resolves to { status, body }: status 0 and a message
  // when the server cannot be reached, body null when the reply is not JSON.
  async function postJson(path, payload, bearer, withCookies) {
    const headers = { 'Accept': 'application/json' };
    if (payload !== null) headers['Content-Type'] = 'application/json';
    if (bearer) headers.Authorization = 'Bearer ' + bearer;
    try {
      const resp = await fetch(path, {
        method: 'POST', credentials: withCookies ? 'same-origin' : 'omit', cache: 'no-store', headers,
        body: payload === null ? undefined : JSON.stringify(payload),
      });
      return { status: resp.status, body: await resp.json().catch(() => null) };
    } catch (e) {
      return { status: 0, body: { message: 'The server could not be reached. Check your connection and try again.' } };
    }
  }

  return { setFieldError, setGeneral, siteOfAddress, keepOnlySite, takeLink, showSite, postJson };
})();
