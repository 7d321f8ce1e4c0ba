// The console's Sign-in section (#sign-in): the site's OpenID Connect
// clients (GET /admin/sites/{site}/oauth-clients, never a secret) and its
// issuer. An owner registers a client (POST, the secret shown this once),
// gives a confidential one a new secret (shown once; the old one stops) and
// an admin deletes one (its sessions end), each after a confirmation.
// Below them the upstream providers ("Sign in with …", GET
// /admin/sites/{site}/providers, never a secret), each with the callback to
// register at the provider. An admin adds one (POST: a preset — Google,
// Microsoft, Apple, GitLab —, GitHub, or another OpenID Connect provider
// found by discovery at its issuer; the client secret is typed in a
// password field and never comes back) and removes one after a
// confirmation (DELETE .../providers/{name}). A viewer sees the lists only.
// (One script for the section: the first load's requests stay under the
// rate limit's burst, docs/decisions.md.)
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
    await Promise.all([load(), renderProviders(view, ctx)]);
  }

  // --- upstream providers ------------------------------------------------------

  // What the kind select offers: a preset's name is the provider's name.
  const KINDS = [
    { value: 'google', label: 'Google', preset: true },
    { value: 'microsoft', label: 'Microsoft', preset: true, tenant: true },
    { value: 'apple', label: 'Apple', preset: true, apple: true },
    { value: 'gitlab', label: 'GitLab', preset: true },
    { value: 'github', label: 'GitHub', type: 'github' },
    { value: 'oidc', label: 'Another OpenID Connect provider', type: 'oidc', issuer: true },
  ];
  const DISCOVERY = '/.well-known/openid-configuration';

  function renderProviders(view, ctx) {
    const { ui, api } = ctx;
    const write = ctx.may('admin');
    const rows = ui.el('ul', { id: 'providers-list', className: 'rows' });
    const line = ui.el('p', { id: 'providers-status', className: 'status', role: 'status' });
    const callbackBox = ui.el('div', { id: 'provider-callback-box', className: 'alert', hidden: true, tabIndex: -1 });
    view.append(ui.el('h2', { id: 'providers-title' }, 'Sign in with another provider'),
                ui.el('p', { className: 'muted' }, 'The buttons the sign-in page shows beside the password ' +
                      '("Sign in with Google"). Register each one\u2019s callback at the provider.'),
                callbackBox, rows, line);

    async function load() {
      const reply = await api.get('/providers');
      rows.textContent = '';
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      ui.status(line, '');
      reply.body.providers.forEach((p) => {
        const li = ui.el('li', {},
          ui.el('span', {}, ui.el('strong', {}, p.name), ' ', ui.el('span', { className: 'muted' }, p.issuer)),
          ui.el('strong', { className: 'badge plain' }, p.type),
          p.trust_email ? ui.el('strong', { className: 'badge warn' }, 'trusts its addresses') : null,
          ui.el('span', { className: 'muted' }, 'client ', ui.el('code', {}, p.client_id), ' · scopes ', p.scopes,
                p.team_id ? [' · Apple key ', ui.el('code', {}, p.team_id + '/' + p.key_id)] : '',
                ' · callback ', ui.el('code', {}, p.callback)));
        if (write) {
          const remove = ui.button('Remove', async (b) => {
            const question = 'Remove ' + p.name + '? Its button goes; users it signed in keep their accounts.';
            if (!(await ui.confirmInline(b, question, 'Remove'))) return;
            const r = await ui.busy(b, () => api.call('DELETE', '/providers/' + encodeURIComponent(p.name)));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            callbackBox.hidden = true;
            await load();
            ui.status(line, p.name + ' is removed.');
            line.tabIndex = -1;
            line.focus();
          });
          remove.setAttribute('aria-label', 'Remove ' + p.name);
          li.appendChild(remove);
        }
        rows.appendChild(li);
      });
      if (!rows.children.length) ui.status(line, 'No provider yet: users sign in with this site only.');
    }

    if (write) view.append(providerForm(ctx, load, callbackBox));
    return load();
  }

  // The form that adds a provider; `load` redraws the list, `callbackBox`
  // shows the new provider's callback.
  function providerForm(ctx, load, callbackBox) {
    const { ui, api } = ctx;
    const kind = ui.field('provider-kind', 'Provider', ui.el('select', {},
      KINDS.map((k) => ui.el('option', { value: k.value }, k.label))));
    const fields = {
      name: ui.field('provider-name', 'Name', ui.el('input', { type: 'text', autocomplete: 'off', spellcheck: false }),
                     'Lower-case letters, digits and -; it is part of the callback address.'),
      issuer: ui.field('provider-issuer', 'Issuer or discovery URL',
                       ui.el('input', { type: 'url', autocomplete: 'off', spellcheck: false }),
                       'svc reads the provider\u2019s settings from {issuer}' + DISCOVERY + ' now.'),
      tenant: ui.field('provider-tenant', 'Tenant (optional)', ui.el('input', { type: 'text', autocomplete: 'off' }),
                       'common (the default), organizations, consumers or your tenant id.'),
      client_id: ui.field('provider-client-id', 'Client ID', ui.el('input', { type: 'text', autocomplete: 'off',
                                                                              spellcheck: false })),
      client_secret: ui.field('provider-client-secret', 'Client secret',
                              ui.el('input', { type: 'password', autocomplete: 'new-password' }),
                              'Kept sealed; never shown again, here or anywhere.'),
      // Apple: no client secret but a key that signs a fresh one for every sign-in.
      team_id: ui.field('provider-team-id', 'Team ID', ui.el('input', { type: 'text', autocomplete: 'off',
                                                                        spellcheck: false }),
                        'Your Apple developer team\u2019s id (letters and digits).'),
      key_id: ui.field('provider-key-id', 'Key ID', ui.el('input', { type: 'text', autocomplete: 'off',
                                                                     spellcheck: false }),
                       'The id of the Sign in with Apple key.'),
      key_p8: ui.field('provider-key-p8', 'Private key (.p8 file)',
                       ui.el('textarea', { rows: 5, autocomplete: 'off', spellcheck: false }),
                       'Paste the whole file, its BEGIN and END lines too. Kept sealed; never shown again.'),
      scopes: ui.field('provider-scopes', 'Scopes (optional)', ui.el('input', { type: 'text', autocomplete: 'off' }),
                       'Empty: openid email profile (GitHub: read:user user:email).'),
    };
    const trust = ui.el('input', { type: 'checkbox', id: 'provider-trust-email' });
    const add = ui.el('button', { id: 'provider-add', type: 'submit' }, 'Add the provider');
    const addLine = ui.el('p', { id: 'provider-add-status', className: 'status', role: 'status' });
    const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'provider-add-title' },
                         ui.el('h3', { id: 'provider-add-title' }, 'Add a provider'), kind.wrap,
                         Object.values(fields).map((f) => f.wrap),
                         ui.el('div', { className: 'check' }, trust, ui.el('label', { for: 'provider-trust-email' },
                               'Take its addresses as verified when it does not say (Microsoft may not)')),
                         add, addLine);

    // A preset fixes the name; only oidc asks for an issuer, only Microsoft a tenant.
    function shape() {
      const k = KINDS.find((x) => x.value === kind.input.value);
      fields.name.input.readOnly = !!k.preset;
      if (k.preset) fields.name.input.value = k.value;
      else if (KINDS.some((x) => x.preset && x.value === fields.name.input.value)) fields.name.input.value = '';
      if (k.value === 'github' && !fields.name.input.value) fields.name.input.value = 'github';
      fields.issuer.wrap.hidden = !k.issuer;
      fields.tenant.wrap.hidden = !k.tenant;
      [fields.team_id, fields.key_id, fields.key_p8].forEach((f) => { f.wrap.hidden = !k.apple; });
      fields.client_secret.wrap.hidden = !!k.apple;
    }
    kind.input.addEventListener('change', shape);
    shape();

    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      Object.values(fields).concat([kind]).forEach((f) => ui.fieldError(f, ''));
      ui.status(addLine, '');
      const k = KINDS.find((x) => x.value === kind.input.value);
      const value = (name) => fields[name].input.value.trim();
      const secret = k.apple ? ['key_p8', 'Paste the .p8 key Apple gave you.']
        : ['client_secret', 'Type the client secret the provider gave you.'];
      const missing = [['name', 'Give the provider a name.'], ['client_id', 'Type the client ID the provider gave you.'],
                       secret]
        .concat(k.issuer ? [['issuer', 'Type the provider\u2019s issuer URL.']] : [])
        .concat(k.apple ? [['team_id', 'Type your team ID.'], ['key_id', 'Type the key\u2019s ID.']] : [])
        .find(([name]) => !(name === secret[0] ? fields[name].input.value : value(name)));
      if (missing) return ui.fieldError(fields[missing[0]], missing[1]);
      const body = { name: value('name'), client_id: value('client_id'), client_secret: fields[secret[0]].input.value,
                     trust_email: trust.checked };
      if (k.apple) Object.assign(body, { team_id: value('team_id'), key_id: value('key_id') });
      if (k.type) body.type = k.type;
      if (k.issuer) body.issuer = value('issuer').replace(DISCOVERY, '').replace(/\/+$/, '');
      if (k.tenant && value('tenant')) body.tenant = value('tenant');
      if (value('scopes')) body.scopes = value('scopes');
      const r = await ui.busy(add, () => api.call('POST', '/providers', body));
      if (r.status !== 200) {
        if (api.fieldMessage(r, 'type')) return ui.fieldError(kind, api.fieldMessage(r, 'type'));
        const bad = Object.keys(fields).find((name) => api.fieldMessage(r, name));
        // Apple's key is the API's client_secret.
        const shown = bad === 'client_secret' && k.apple ? 'key_p8' : bad;
        if (bad) return ui.fieldError(fields[shown], api.fieldMessage(r, bad));
        return ui.status(addLine, api.words(r), true);
      }
      Object.values(fields).forEach((f) => { f.input.value = ''; });
      trust.checked = false;
      shape();
      await load();
      const p = r.body.provider;
      ui.status(addLine, p.name + ' is added.');
      callbackBox.textContent = '';
      callbackBox.append(ui.el('p', {}, 'Register this callback (redirect URI) of ', ui.el('strong', {}, p.name),
                               ' at the provider:'),
                         ui.el('p', {}, ui.el('code', { id: 'provider-callback' }, p.callback)));
      callbackBox.hidden = false;
      callbackBox.focus();
    });
    return formEl;
  }

  (window.svcSections = window.svcSections || []).push({ id: 'sign-in', title: 'Sign-in', render });
})();
