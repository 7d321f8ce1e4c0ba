// What the ready pages' scripts share (reset.js, security.js): an error
// next to a field and the page's alert. Loaded before them (both deferred,
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

  return { setFieldError, setGeneral };
})();
