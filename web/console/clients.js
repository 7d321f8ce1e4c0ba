// The console's Sign-in section (#sign-in): the site's OpenID Connect
// clients (GET /admin/sites/{site}/oauth-clients, never a secret) and its
// issuer. An owner registers a client (POST, the secret shown this once),
// gives a confidential one a new secret (shown once; the old one stops) and
// an admin deletes one (its sessions end), each after a confirmation.
// Below them the upstream providers ("Sign in with …", providers.js).
'use strict';

(function () {
  async function render(view, path, ctx) {
    const { ui, api } = ctx;
    const owner = ctx.may('owner');
    const admin = ctx.may('admin');
    const issuer = ui.el('p', { id: 'clients-issuer', className: 'muted' });
    const rows = ui.el('ul', { id: 'clients-list', className: 'rows' });
    const line = ui.el('p', { id: 'clients-status', className: 'status', role: 'status' });
    const secretBox = ui.el('div', { id: 'client-secret-box', className: 'alert', hidden: true, tabIndex: -1 });
    view.append(ui.el('h1', {}, 'Sign-in clients'),
                ui.el('p', { className: 'muted' }, 'The applications that sign users in with this site (OpenID Connect).'),
                issuer, secretBox, rows, line);

    // A secret in the reply only: shown here once, as text, with the focus on it.
    function showSecret(clientId, secret) {
      secretBox.textContent = '';
      secretBox.append(ui.el('p', {}, 'The secret of ', ui.el('code', {}, clientId),
                             ', shown this once: copy it now.'),
                       ui.el('p', {}, ui.el('code', { id: 'client-secret' }, secret)));
      secretBox.hidden = false;
      secretBox.focus();
    }

    async function load() {
      const reply = await api.get('/oauth-clients');
      rows.textContent = '';
      ui.status(line, '');
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      issuer.textContent = 'Issuer: ' + reply.body.issuer;
      reply.body.clients.forEach((c) => {
        const li = ui.el('li', {},
          ui.el('span', {}, ui.el('strong', {}, c.name), ' ', ui.el('code', {}, c.client_id)),
          ui.el('strong', { className: 'badge plain' }, c.type),
          ui.el('span', { className: 'muted' }, (c.redirect_uris || []).join(' '), ' · ', ui.time(c.created_at)));
        if (owner && c.type === 'confidential') {
          const rotate = ui.button('New secret', async (b) => {
            if (!(await ui.confirmInline(b, 'The old secret of ' + c.name + ' stops working. Go on?', 'New secret'))) return;
            const r = await ui.busy(b, () => api.call('POST', '/oauth-clients/' + encodeURIComponent(c.client_id) + '/secret'));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            showSecret(c.client_id, r.body.client_secret);
          });
          rotate.setAttribute('aria-label', 'New secret for ' + c.name);
          li.appendChild(rotate);
        }
        if (admin) {
          const remove = ui.button('Delete', async (b) => {
            if (!(await ui.confirmInline(b, 'Delete ' + c.name + ' and end its sessions?', 'Delete'))) return;
            const r = await ui.busy(b, () => api.call('DELETE', '/oauth-clients/' + encodeURIComponent(c.client_id)));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            await load();
            ui.status(line, c.name + ' is deleted; ' + r.body.sessions_ended + ' session(s) ended.');
          });
          remove.setAttribute('aria-label', 'Delete ' + c.name);
          li.appendChild(remove);
        }
        rows.appendChild(li);
      });
      if (!rows.children.length) ui.status(line, 'No client yet.');
    }

    if (owner) {
      const name = ui.field('client-name', 'Name', ui.el('input', { type: 'text', autocomplete: 'off' }));
      const uris = ui.field('client-redirect-uris', 'Redirect URIs', ui.el('textarea', { rows: 2, spellcheck: false }),
                            'One a line: where the application receives the sign-in.');
      const isPublic = ui.el('input', { type: 'checkbox', id: 'client-public' });
      const add = ui.el('button', { id: 'client-add', type: 'submit' }, 'Register the client');
      const addLine = ui.el('p', { id: 'client-add-status', className: 'status', role: 'status' });
      const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'client-add-title' },
                           ui.el('h2', { id: 'client-add-title' }, 'Register a client'), name.wrap, uris.wrap,
                           ui.el('div', { className: 'check' }, isPublic,
                                 ui.el('label', { for: 'client-public' }, 'Public (an app in a browser or on a phone: no secret)')),
                           add, addLine);
      formEl.addEventListener('submit', async (event) => {
        event.preventDefault();
        ui.fieldError(name, '');
        ui.fieldError(uris, '');
        ui.status(addLine, '');
        if (!name.input.value.trim()) return ui.fieldError(name, 'Give the client a name.');
        const body = { name: name.input.value.trim(), public: isPublic.checked,
                       redirect_uris: uris.input.value.split('\n').map((s) => s.trim()).filter(Boolean) };
        const r = await ui.busy(add, () => api.call('POST', '/oauth-clients', body));
        if (r.status !== 200) {
          const bad = [['name', name], ['redirect_uris', uris]].find(([n]) => api.fieldMessage(r, n));
          if (bad) return ui.fieldError(bad[1], api.fieldMessage(r, bad[0]));
          return ui.status(addLine, api.words(r), true);
        }
        name.input.value = '';
        uris.input.value = '';
        await load();
        ui.status(addLine, r.body.client.name + ' is registered as ' + r.body.client.client_id + '.');
        if (r.body.client_secret) showSecret(r.body.client.client_id, r.body.client_secret);
      });
      view.append(formEl);
    }
    await Promise.all([load(), window.svcProviders.render(view, ctx)]);
  }

  (window.svcSections = window.svcSections || []).push({ id: 'sign-in', title: 'Sign-in', render });
})();
