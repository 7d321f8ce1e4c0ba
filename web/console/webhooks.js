// The console's Webhooks section (#webhooks): the site's endpoints (GET
// /admin/sites/{site}/webhooks, never a secret) and their deliveries (GET
// .../webhooks/deliveries, newest first, a page at a time with "Older
// deliveries", for every endpoint or one). An admin subscribes a URL to
// events (the signing secret shown this once), disables or enables an
// endpoint, gives one a new signing secret (shown once; the old one signs
// beside it for a while) and deletes one after a confirmation (the new
// secret and the delete need a recent sign-in, asked for in the dialog).
'use strict';

(function () {
  const PAGE = 20;

  async function render(view, path, ctx) {
    const { ui, api } = ctx;
    const write = ctx.may('admin');
    const rows = ui.el('ul', { id: 'webhooks-list', className: 'rows' });
    const line = ui.el('p', { id: 'webhooks-status', className: 'status', role: 'status' });
    const secretBox = ui.el('div', { id: 'webhook-secret-box', className: 'alert', hidden: true, tabIndex: -1 });
    const deliveries = ui.el('ol', { id: 'deliveries-list', className: 'rows' });
    const deliveriesLine = ui.el('p', { id: 'deliveries-status', className: 'status', role: 'status' });
    const endpointSelect = ui.field('deliveries-endpoint', 'Endpoint', ui.el('select', {},
                                    ui.el('option', { value: '' }, 'All endpoints')));
    const show = ui.el('button', { id: 'deliveries-show', type: 'submit', className: 'secondary' }, 'Show');
    const filters = ui.el('form', { noValidate: true, className: 'filters', 'aria-label': 'Filter the deliveries' },
                          endpointSelect.wrap, show);
    const older = ui.el('button', { id: 'deliveries-older', type: 'button', className: 'secondary', hidden: true },
                        'Older deliveries');
    let next = null;
    view.append(ui.el('h1', {}, 'Webhooks'),
                ui.el('p', { className: 'muted' }, 'The addresses this site posts signed events to.'),
                secretBox, rows, line);

    // A secret in a reply only: shown here once, as text, with the focus on it.
    function showSecret(url, secret, what) {
      secretBox.textContent = '';
      secretBox.append(ui.el('p', {}, what + ' of ', url, ', shown this once: copy it now.'),
                       ui.el('p', {}, ui.el('code', { id: 'webhook-secret' }, secret)));
      secretBox.hidden = false;
      secretBox.focus();
    }

    // The endpoint filter's options: every endpoint, the chosen one kept.
    function fillEndpoints(endpoints) {
      const select = endpointSelect.input;
      const chosen = select.value;
      while (select.options.length > 1) select.remove(1);
      endpoints.forEach((e) => select.appendChild(ui.el('option', { value: String(e.id) }, e.url + ' (' + e.id + ')')));
      select.value = endpoints.some((e) => String(e.id) === chosen) ? chosen : '';
    }

    async function load() {
      const reply = await api.get('/webhooks');
      rows.textContent = '';
      ui.status(line, '');
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      fillEndpoints(reply.body.endpoints);
      reply.body.endpoints.forEach((e) => {
        const li = ui.el('li', {},
          ui.el('span', {}, e.url),
          ui.el('strong', { className: e.enabled ? 'badge' : 'badge off' }, e.enabled ? 'enabled' : 'disabled'),
          ui.el('span', { className: 'muted' }, e.events.join(', '), ' · ', e.failures + ' failure(s)',
                e.disabled_reason ? ' · ' + e.disabled_reason : '', ' · last success ',
                ui.time(e.last_success_at, 'never')));
        if (write) {
          const toggle = ui.button(e.enabled ? 'Disable' : 'Enable', async (b) => {
            const r = await ui.busy(b, () => api.call('PATCH', '/webhooks/' + e.id, { enabled: !e.enabled }));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            await load();
            ui.status(line, e.url + (e.enabled ? ' is disabled.' : ' is enabled again.'));
          });
          toggle.setAttribute('aria-label', (e.enabled ? 'Disable ' : 'Enable ') + e.url);
          const rotate = ui.button('New secret', async (b) => {
            if (!(await ui.confirmInline(b, 'Give ' + e.url + ' a new signing secret? The old one signs beside it ' +
                                            'for a while, then stops.', 'New secret'))) return;
            const r = await ui.busy(b, () => api.call('POST', '/webhooks/' + e.id + '/secret'));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            ui.status(line, e.url + ' has a new signing secret.');
            showSecret(e.url, r.body.secret, 'The new signing secret');
          });
          rotate.setAttribute('aria-label', 'New secret for ' + e.url);
          const remove = ui.button('Delete', async (b) => {
            if (!(await ui.confirmInline(b, 'Delete ' + e.url + '? Its pending deliveries are dropped.', 'Delete'))) return;
            const r = await ui.busy(b, () => api.call('DELETE', '/webhooks/' + e.id));
            if (r.status !== 200) return ui.status(line, api.words(r), true);
            await load();
            ui.status(line, e.url + ' is deleted.');
          });
          remove.setAttribute('aria-label', 'Delete ' + e.url);
          li.append(toggle, rotate, remove);
        }
        rows.appendChild(li);
      });
      if (!rows.children.length) ui.status(line, 'No webhook yet.');
    }

    // The newest page of the chosen endpoint's deliveries (`fresh`), or the
    // page older than those shown.
    async function loadDeliveries(fresh) {
      if (fresh) next = null;
      const reply = await api.get('/webhooks/deliveries' +
                                  api.query({ limit: PAGE, cursor: next, endpoint: endpointSelect.input.value }));
      if (fresh) deliveries.textContent = '';
      ui.status(deliveriesLine, '');
      if (reply.status !== 200) return ui.status(deliveriesLine, api.words(reply), true);
      reply.body.deliveries.forEach((d) => deliveries.appendChild(ui.el('li', {},
        ui.el('span', {}, ui.el('code', {}, d.type), ' to endpoint ' + d.endpoint_id),
        ui.el('strong', { className: 'badge plain' }, d.status),
        ui.el('span', { className: 'muted' }, d.attempts + ' attempt(s)',
              d.last_status ? ' · HTTP ' + d.last_status : '', d.last_error ? ' · ' + d.last_error : '', ' · ',
              ui.time(d.created_at)))));
      next = reply.body.next_cursor;
      older.hidden = !next;
      if (!deliveries.children.length) ui.status(deliveriesLine, 'No delivery yet.');
      else if (!next) ui.status(deliveriesLine, deliveries.children.length + ' deliveries; none older.');
    }

    filters.addEventListener('submit', (event) => {
      event.preventDefault();
      ui.busy(show, () => loadDeliveries(true));
    });
    older.addEventListener('click', async () => {
      await ui.busy(older, () => loadDeliveries(false));
      if (older.hidden) {  // the last page: the focus goes to what says so, not to the page's top
        deliveriesLine.tabIndex = -1;
        deliveriesLine.focus();
      }
    });

    if (write) {
      const url = ui.field('webhook-url', 'URL', ui.el('input', { type: 'url', autocomplete: 'off' }),
                           'https, reachable from the internet.');
      const events = ui.field('webhook-events', 'Events', ui.el('input', { type: 'text', autocomplete: 'off' }),
                              'Separated by commas, e.g. user.created, message.bounced (docs/webhooks.md lists them).');
      const add = ui.el('button', { id: 'webhook-add', type: 'submit' }, 'Add the webhook');
      const addLine = ui.el('p', { id: 'webhook-add-status', className: 'status', role: 'status' });
      const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'webhook-add-title' },
                           ui.el('h2', { id: 'webhook-add-title' }, 'Add a webhook'), url.wrap, events.wrap, add, addLine);
      formEl.addEventListener('submit', async (event) => {
        event.preventDefault();
        ui.fieldError(url, '');
        ui.fieldError(events, '');
        ui.status(addLine, '');
        const body = { url: url.input.value.trim(),
                       events: events.input.value.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean) };
        const r = await ui.busy(add, () => api.call('POST', '/webhooks', body));
        if (r.status !== 200) {
          const bad = [['url', url], ['events', events]].find(([n]) => api.fieldMessage(r, n));
          if (bad) return ui.fieldError(bad[1], api.fieldMessage(r, bad[0]));
          return ui.status(addLine, api.words(r), true);
        }
        url.input.value = '';
        events.input.value = '';
        await load();
        ui.status(addLine, r.body.endpoint.url + ' is added.');
        showSecret(r.body.endpoint.url, r.body.secret, 'The signing secret');
      });
      view.append(formEl);
    }
    view.append(ui.el('h2', {}, 'Deliveries'), filters, deliveries, older, deliveriesLine);
    await Promise.all([load(), loadDeliveries(true)]);
  }

  (window.svcSections = window.svcSections || []).push({ id: 'webhooks', title: 'Webhooks', render });
})();
