// The console's Settings section (#settings): the site's settings as stored
// (GET /admin/sites/{site}/settings) in one form; an admin saves the fields
// changed (PATCH .../settings with those alone) and each error the API
// names is shown under its field. A viewer reads the same form, read only,
// with no save button.
'use strict';

(function () {
  // [name, label, kind, hint]; kind: text, email, check, score, lines.
  const FIELDS = [
    ['name', 'Site name', 'text'],
    ['email_from', 'Mail is sent from', 'text', 'An address, optionally with a name: Shop <no-reply@shop.example>.'],
    ['disable_email', 'Send no e-mail at all from this site', 'check'],
    ['verify_email', 'New users verify their address', 'check'],
    ['new_device_mail', 'Mail users about a sign-in from a new device', 'check'],
    ['email_cc', 'Copy every mail to (a user of the site)', 'email', 'Empty: no copy.'],
    ['email_bcc', 'Blind copy every mail to (a user of the site)', 'email', 'Empty: no copy.'],
    ['min_password_score', 'Weakest password allowed', 'score'],
    ['reset_urls', 'Password reset pages', 'lines', 'One address a line; the first is the default.'],
    ['passkey_rp_id', 'Passkeys: the site\'s host name (RP id)', 'text', 'Empty: passkeys are off.'],
    ['passkey_origins', 'Passkeys: origins', 'lines', 'One origin a line, https:// on the host name or under it.'],
  ];
  const SCORES = ['0: no minimum', '1: very weak', '2: weak', '3: fair', '4: strong'];

  async function render(view, path, ctx) {
    const { ui, api } = ctx;
    const write = ctx.may('admin');
    view.append(ui.el('h1', {}, 'Settings'));
    const reply = await api.get('/settings');
    if (reply.status !== 200) {
      view.append(ui.el('p', { id: 'settings-status', className: 'status bad', role: 'status' }, api.words(reply)));
      return;
    }
    let stored = reply.body.settings;
    const fields = {};
    const formEl = ui.el('form', { noValidate: true, 'aria-label': 'The site\'s settings' });
    FIELDS.forEach(([name, label, kind, hint]) => {
      const id = 'set-' + name.replace(/_/g, '-');
      if (kind === 'check') {
        const input = ui.el('input', { type: 'checkbox', id, disabled: !write });
        const error = ui.el('p', { id: id + '-error', className: 'error', hidden: true });
        input.setAttribute('aria-describedby', id + '-error');
        fields[name] = { kind, input, error, wrap: ui.el('div', { className: 'check-field' },
          ui.el('div', { className: 'check' }, input, ui.el('label', { for: id }, label)), error) };
      } else {
        let input;
        if (kind === 'score') {
          input = ui.el('select', { disabled: !write });
          SCORES.forEach((t, i) => input.appendChild(ui.el('option', { value: String(i) }, t)));
        } else if (kind === 'lines') {
          input = ui.el('textarea', { rows: 3, spellcheck: false, readOnly: !write });
        } else {
          input = ui.el('input', { type: kind === 'email' ? 'email' : 'text', autocomplete: 'off', readOnly: !write });
        }
        fields[name] = Object.assign({ kind }, ui.field(id, label, input, hint));
      }
      formEl.appendChild(fields[name].wrap);
    });
    const save = ui.el('button', { id: 'settings-save', type: 'submit' }, 'Save the settings');
    const line = ui.el('p', { id: 'settings-status', className: 'status', role: 'status' });
    if (write) formEl.appendChild(save);
    formEl.appendChild(line);
    view.append(ui.el('p', { className: 'muted' }, write ? 'A change reaches every worker within a few seconds.'
      : 'Only an admin or owner changes these.'), formEl);

    function valueOf(name) {
      const f = fields[name];
      const v = f.input.value;
      if (f.kind === 'check') return f.input.checked;
      if (f.kind === 'score') return Number(v);
      if (f.kind === 'lines') return v.split('\n').map((s) => s.trim()).filter(Boolean);
      if (f.kind === 'email' || name === 'passkey_rp_id') return v.trim() || null;
      return v.trim();
    }

    function fill(s) {
      stored = s;
      Object.entries(fields).forEach(([name, f]) => {
        const v = s[name];
        if (f.kind === 'check') f.input.checked = !!v;
        else if (f.kind === 'lines') f.input.value = (v || []).join('\n');
        else f.input.value = v === null || v === undefined ? '' : String(v);
      });
    }

    function clearErrors() {
      Object.values(fields).forEach((f) => {
        f.error.textContent = '';
        f.error.hidden = true;
        f.input.removeAttribute('aria-invalid');
      });
    }

    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!write) return;
      clearErrors();
      ui.status(line, '');
      const changes = {};
      Object.keys(fields).forEach((name) => {
        const v = valueOf(name);
        if (JSON.stringify(v) !== JSON.stringify(stored[name] === undefined ? null : stored[name])) changes[name] = v;
      });
      if (!Object.keys(changes).length) return ui.status(line, 'Nothing changed.');
      const r = await ui.busy(save, () => api.call('PATCH', '/settings', changes));
      if (r.status === 200) {
        fill(r.body.settings);
        return ui.status(line, 'Saved: ' + Object.keys(changes).map((n) => FIELDS.find((f) => f[0] === n)[1])
          .join(', ') + '.');
      }
      let first = null;
      Object.entries(fields).forEach(([name, f]) => {
        const message = api.fieldMessage(r, name);
        if (!message) return;
        f.error.textContent = message;
        f.error.hidden = false;
        f.input.setAttribute('aria-invalid', 'true');
        if (!first) first = f.input;
      });
      if (first) {
        ui.status(line, 'Nothing was saved: see the field marked.', true);
        return first.focus();
      }
      ui.status(line, api.words(r), true);
    });

    fill(stored);
  }

  (window.svcSections = window.svcSections || []).push({ id: 'settings', title: 'Settings', render });
})();
