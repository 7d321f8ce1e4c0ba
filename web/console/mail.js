// The console's Mail section (#mail, #mail/{id}): the site's notification
// log, newest first, with filters (status, event, recipient, dates; GET
// /admin/sites/{site}/mail, keyset pages), the suppression list (an admin
// removes one) and the bounce guard's state; one mail as svc-sender sends it
// (its HTML part in the same sandbox="" frame as the template preview, its
// text part, the headers), what happened to it, and "Resend" for a Failed
// one (admin).
'use strict';

(function () {
  const PAGE = 50;
  const STATUS_BADGE = { Sent: 'badge', Pending: 'badge warn', Failed: 'badge off' };

  // --- the log -------------------------------------------------------------------

  function renderLog(view, ctx) {
    const { ui, api } = ctx;
    const write = ctx.may('admin');
    const status = ui.el('select', {});
    [['', 'Any status'], ['Failed', 'Failed'], ['Pending', 'Pending'], ['Sent', 'Sent']].forEach(([v, t]) =>
      status.appendChild(ui.el('option', { value: v }, t)));
    const fields = {
      status: ui.field('mail-status', 'Status', status),
      event: ui.field('mail-event', 'Event', ui.el('input', { type: 'text', autocomplete: 'off' })),
      recipient: ui.field('mail-recipient', 'Recipient', ui.el('input', { type: 'email', autocomplete: 'off' })),
      since: ui.field('mail-since', 'From (date, UTC)', ui.el('input', { type: 'date' })),
      until: ui.field('mail-until', 'Before (date, UTC)', ui.el('input', { type: 'date' })),
    };
    const apply = ui.el('button', { id: 'mail-apply', type: 'submit', className: 'secondary' }, 'Show');
    const filters = ui.el('form', { noValidate: true, className: 'filters', 'aria-label': 'Filter the mail log' },
                          Object.values(fields).map((f) => f.wrap), apply);
    const rows = ui.el('ul', { id: 'mail-list', className: 'rows' });
    const more = ui.el('button', { id: 'mail-more', type: 'button', className: 'secondary', hidden: true }, 'Older mail');
    const line = ui.el('p', { id: 'mail-list-status', className: 'status', role: 'status' });
    view.append(ui.el('h1', {}, 'Mail'),
                ui.el('p', { className: 'muted' }, 'Every mail this site sent or is sending, newest first.'),
                filters, rows, more, line);
    let next = null;

    function query() {
      const q = { limit: PAGE, cursor: next };
      Object.entries(fields).forEach(([name, f]) => { q[name] = f.input.value.trim(); });
      return api.query(q);
    }

    async function load(fresh) {
      if (fresh) {
        next = null;
        Object.values(fields).forEach((f) => ui.fieldError(f, ''));
      }
      const reply = await api.get('/mail' + query());
      if (fresh) rows.textContent = '';
      if (reply.status !== 200) {
        const bad = Object.entries(fields).find(([name]) => api.fieldMessage(reply, name));
        if (bad) return ui.fieldError(bad[1], api.fieldMessage(reply, bad[0]));
        return ui.status(line, api.words(reply), true);
      }
      reply.body.mail.forEach((m) => {
        rows.appendChild(ui.el('li', {},
          ui.el('a', { href: '#mail/' + m.id, className: 'user-link' }, m.subject || '(no subject)'),
          ui.el('strong', { className: STATUS_BADGE[m.status] || 'badge plain' }, m.status),
          ui.el('span', {}, m.recipient),
          ui.el('span', { className: 'muted' }, m.event, ' · ', ui.time(m.created_at))));
      });
      next = reply.body.next_cursor;
      more.hidden = !next;
      ui.status(line, rows.children.length ? '' : 'No mail matches.');
    }

    filters.addEventListener('submit', (event) => {
      event.preventDefault();
      ui.busy(apply, () => load(true));
    });
    more.addEventListener('click', () => ui.busy(more, () => load(false)));

    // --- suppressions and the bounce guard ---
    const suppressed = ui.el('ul', { id: 'suppressions', className: 'rows' });
    const supLine = ui.el('p', { id: 'suppressions-status', className: 'status', role: 'status' });
    const guard = ui.el('dl', { id: 'bounce-guard', className: 'facts' });
    view.append(ui.el('h2', {}, 'Addresses mail does not go to'), suppressed, supLine,
                ui.el('h2', {}, 'Bounce guard'), guard);

    async function loadSuppressions() {
      const reply = await api.get('/suppressions' + api.query({ limit: PAGE }));
      suppressed.textContent = '';
      if (reply.status !== 200) return ui.status(supLine, api.words(reply), true);
      reply.body.suppressions.forEach((s) => {
        const li = ui.el('li', {}, ui.el('span', {}, s.address),
                         ui.el('strong', { className: 'badge plain' }, s.reason),
                         ui.el('span', { className: 'muted' }, s.detail ? s.detail + ' · ' : '', ui.time(s.created_at)));
        if (write) {
          const remove = ui.button('Remove', async (b) => {
            if (!(await ui.confirmInline(b, 'Let mail go to ' + s.address + ' again?', 'Remove'))) return;
            const r = await ui.busy(b, () => api.call('DELETE', '/suppressions' + api.query({ email: s.address })));
            if (r.status !== 200) {
              ui.status(supLine, api.words(r), true);
              return b.focus();
            }
            await loadSuppressions();
            ui.status(supLine, 'Mail goes to ' + s.address + ' again.');
          });
          remove.setAttribute('aria-label', 'Remove ' + s.address);
          li.appendChild(remove);
        }
        suppressed.appendChild(li);
      });
      if (!suppressed.children.length && !supLine.textContent) ui.status(supLine, 'None: mail goes to every address.');
    }

    async function loadGuard() {
      const reply = await api.get('/bounce-guard');
      guard.textContent = '';
      if (reply.status !== 200) return guard.appendChild(ui.el('dd', {}, api.words(reply)));
      const g = reply.body.bounce_guard;
      const facts = [
        ['State', !g.enabled ? 'Off on this server' : g.holding ? 'Holding bulk mail back: too many hard bounces'
          : 'Watching: bulk mail goes out'],
        ['Last hour', g.hard_bounces_last_hour + ' hard bounce(s) of ' + g.mails_last_hour + ' mail(s)'],
        ['Holds back at', g.max_rate_percent + '% hard bounces, from ' + g.min_mails + ' mails an hour'],
      ];
      facts.forEach(([k, v]) => guard.append(ui.el('dt', {}, k), ui.el('dd', {}, v)));
    }

    return Promise.all([load(true), loadSuppressions(), loadGuard()]);
  }

  // --- one mail ------------------------------------------------------------------

  async function renderMail(view, id, ctx) {
    const { ui, api } = ctx;
    const path = '/mail/' + encodeURIComponent(id);
    const reply = await api.get(path);
    view.append(ui.el('p', {}, ui.el('a', { href: '#mail' }, 'All mail')));
    if (reply.status !== 200) {
      view.append(ui.el('h1', {}, 'Mail'),
                  ui.el('p', { id: 'mail-status-line', className: 'status bad', role: 'status' }, api.words(reply)));
      return;
    }
    const facts = ui.el('dl', { id: 'mail-facts', className: 'facts' });
    const history = ui.el('ol', { id: 'mail-history', className: 'rows' });
    const line = ui.el('p', { id: 'mail-status-line', className: 'status', role: 'status' });
    const actions = ui.el('div', { className: 'actions' });
    const frame = ui.el('iframe', { id: 'mail-html', title: 'The HTML part of the mail' });
    frame.setAttribute('sandbox', '');  // no script, no form, no navigation, an opaque origin
    frame.setAttribute('referrerpolicy', 'no-referrer');
    const text = ui.el('pre', { id: 'mail-text', className: 'mail-text', tabIndex: 0, 'aria-label': 'The text part of the mail' });
    const heading = ui.el('h1', {});
    view.append(heading, actions, line, facts, ui.el('h2', {}, 'What happened'), history,
                ui.el('section', { className: 'preview', 'aria-labelledby': 'mail-body-title' },
                      ui.el('h2', { id: 'mail-body-title' }, 'As sent'), ui.el('h3', {}, 'HTML part'), frame,
                      ui.el('h3', {}, 'Text part'), text));

    function show(m, message, bounces, suppressedNow) {
      heading.textContent = m.subject || '(no subject)';
      facts.textContent = '';
      [['Status', m.status + (m.last_error ? ': ' + m.last_error : '')], ['To', m.recipient], ['Event', m.event],
       ['Attempts', String(m.attempts)]].concat(message ? [['From', message.from], ['Message-ID', message.message_id]] : [])
        .forEach(([k, v]) => facts.append(ui.el('dt', {}, k), ui.el('dd', {}, v || '—')));
      history.textContent = '';
      const events = [[m.created_at, 'Queued']];
      if (m.status === 'Pending' && m.next_attempt_at) events.push([m.next_attempt_at, 'Next attempt due']);
      if (m.sent_at) events.push([m.sent_at, 'Sent']);
      if (m.status === 'Failed') events.push([null, 'Failed after ' + m.attempts + ' attempt(s)' +
                                              (m.last_error ? ': ' + m.last_error : '')]);
      (bounces || []).forEach((b) => events.push([b.created_at, 'Bounce (' + b.kind + ') from ' + b.address + ': ' + b.status]));
      (suppressedNow || []).forEach((s) => events.push([null, s.address + ' is suppressed now (' + s.reason + ')']));
      events.forEach(([at, what]) => history.appendChild(ui.el('li', {}, ui.el('span', {}, what),
                                                                        at ? ui.time(at) : null)));
      actions.textContent = '';
      if (ctx.may('admin') && m.status === 'Failed') {
        actions.appendChild(ui.button('Resend', async (b) => {
          const r = await ui.busy(b, () => api.call('POST', path + '/resend'));
          if (r.status !== 200) return ui.status(line, api.words(r), true);
          show(r.body.mail, message, bounces, suppressedNow);
          ui.status(line, 'Back in the queue: svc-sender sends it on its next pass.');
          line.tabIndex = -1;
          line.focus();
        }, 'secondary'));
        actions.lastChild.id = 'mail-resend';
      }
    }

    const b = reply.body;
    show(b.mail, b.message, b.bounces, b.suppressed);
    if (b.message) {
      frame.srcdoc = b.message.html || '';
      text.textContent = b.message.text || '';
    }
  }

  function render(view, path, ctx) {
    return path[0] ? renderMail(view, path[0], ctx) : renderLog(view, ctx);
  }

  (window.svcSections = window.svcSections || []).push({ id: 'mail', title: 'Mail', render });
})();
