// What the console's sections share to draw (web/console/): elements built
// with text only (data from the API is never parsed as markup), times as
// people say them, a button that is disabled while its work runs, a status
// line, an error under a field and an inline confirmation. No requests.
'use strict';

window.svcUi = (function () {
  // el('li', {className: 'row', id: 'x'}, 'text', child, ...): attributes
  // are properties (textContent-safe); strings become text nodes.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (value === undefined || value === null || value === false) return;
      if (key.startsWith('aria-') || key.startsWith('data-') || key === 'for' || key === 'role') {
        node.setAttribute(key, value === true ? 'true' : String(value));
      } else {
        node[key] = value;
      }
    });
    children.flat().forEach((child) => {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child))
                                                                              : child);
    });
    return node;
  }

  // An RFC 3339 time of the API as people say it ("3 minutes ago",
  // "yesterday", then the date: devices.js), or `none` for null.
  function ago(rfc3339, none) {
    if (!rfc3339) return none || 'never';
    const ms = Date.parse(rfc3339);
    return Number.isFinite(ms) ? window.svcDevices.ago(ms / 1000) : none || 'never';
  }

  // The same time in full, for a tooltip ("29 November 2026, 10:00 UTC").
  function exact(rfc3339) {
    const ms = Date.parse(rfc3339 || '');
    if (!Number.isFinite(ms)) return '';
    return new Date(ms).toLocaleString('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';
  }

  // A <time> element that reads "3 minutes ago" with the exact time beside.
  function time(rfc3339, none) {
    if (!rfc3339) return el('span', {}, none || 'never');
    return el('time', { dateTime: rfc3339, title: exact(rfc3339) }, ago(rfc3339, none));
  }

  function button(label, onClick, className) {
    const b = el('button', { type: 'button', className: className || 'secondary small' }, label);
    b.addEventListener('click', () => onClick(b));
    return b;
  }

  // Disables `element` while `work` runs.
  async function busy(element, work) {
    element.disabled = true;
    try { return await work(); } finally { element.disabled = false; }
  }

  // A status line (role=status): `message`, an error when `bad`.
  function status(line, message, bad) {
    line.textContent = message || '';
    line.classList.toggle('bad', !!bad);
  }

  // A labelled field: { wrap, input, error } with the error under the input,
  // tied to it by aria-describedby, and set with fieldError().
  function field(id, label, input, hint) {
    input.id = id;
    const error = el('p', { id: id + '-error', className: 'error', hidden: true });
    const described = [hint ? id + '-hint' : '', id + '-error'].filter(Boolean).join(' ');
    input.setAttribute('aria-describedby', described);
    const wrap = el('div', { className: 'field' }, el('label', { for: id }, label), input,
                    hint ? el('p', { id: id + '-hint', className: 'hint' }, hint) : null, error);
    return { wrap, input, error };
  }

  function fieldError(f, message) {
    f.error.textContent = message || '';
    f.error.hidden = !message;
    if (message) {
      f.input.setAttribute('aria-invalid', 'true');
      f.input.focus();
    } else {
      f.input.removeAttribute('aria-invalid');
    }
  }

  // Replaces `trigger` by "question [yes] [Cancel]" until one is pressed;
  // resolves to true for yes. Focus goes to Cancel, the safe choice, and
  // comes back to the trigger on cancel.
  function confirmInline(trigger, question, yesLabel) {
    return new Promise((resolve) => {
      const yes = el('button', { type: 'button', className: 'danger small' }, yesLabel);
      const no = el('button', { type: 'button', className: 'secondary small' }, 'Cancel');
      const box = el('span', { className: 'confirm', role: 'group', 'aria-label': question }, el('span', {}, question),
                     yes, no);
      trigger.hidden = true;
      trigger.after(box);
      const done = (answer) => {
        box.remove();
        trigger.hidden = false;
        if (!answer) trigger.focus();
        resolve(answer);
      };
      yes.addEventListener('click', () => done(true));
      no.addEventListener('click', () => done(false));
      no.focus();
    });
  }

  // A danger-zone form after the element `after` that asks to type
  // `expected` before `act()` (a call resolving to an API reply) runs: a
  // mismatch or a refusal (`words(reply)`) is said under the field, a
  // success calls done(reply); Cancel removes the form and gives the focus
  // back to `trigger`. Ids: {id}-form, {id}-confirm (the field), {id}-submit.
  function typedConfirm({ after, trigger, id, label, hint, expected, mismatch, yes, name, act, words, done }) {
    const typed = field(id + '-confirm', label, el('input', { type: 'text', autocomplete: 'off', spellcheck: false }),
                        hint);
    const submit = el('button', { id: id + '-submit', type: 'submit', className: 'danger' }, yes);
    const no = el('button', { type: 'button', className: 'link' }, 'Cancel');
    const form = el('form', { id: id + '-form', noValidate: true, className: 'danger-zone', 'aria-label': name },
                    typed.wrap, submit, no);
    after.after(form);
    no.addEventListener('click', () => { form.remove(); trigger.focus(); });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (typed.input.value.trim() !== expected) return fieldError(typed, mismatch);
      fieldError(typed, '');
      const reply = await busy(submit, act);
      if (reply.status !== 200) return fieldError(typed, words(reply));
      done(reply);
    });
    typed.input.focus();
    return form;
  }

  // "First Last" or '' from a user of the API.
  function fullName(user) {
    return [user.first_name, user.last_name].filter((p) => typeof p === 'string' && p.trim()).join(' ');
  }

  return { el, ago, exact, time, button, busy, status, field, fieldError, confirmInline, typedConfirm, fullName };
})();
