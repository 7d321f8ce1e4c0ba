// What the ready pages' scripts share (reset.js, security.js, not-me.js):
// an error next to a field, the page's alert and a JSON POST. Loaded before them (both deferred,
// so in document order); no inline script, no external requests.
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

  // POSTs `body` as JSON to `path` on this origin (no cookies, no cache):
  // {status, body} with the reply's JSON (null when it has none); status 0
  // and a message when the server cannot be reached.
  async function postJson(path, body) {
    try {
      const resp = await fetch(path, {
        method: 'POST',
        credentials: 'omit',
        cache: 'no-store',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: resp.status, body: await resp.json().catch(() => null) };
    } catch (e) {
      return { status: 0, body: { message: 'The server could not be reached. Check your connection and try again.' } };
    }
  }

  return { setFieldError, setGeneral, postJson };
})();
