// The console's Audit section (#audit): every change to the site, newest
// first (GET /admin/sites/{site}/audit, keyset pages with "More"): when, who
// (you, another administrator's user page, or "the operator"), what, on
// what, from where.
'use strict';

(function () {
  const PAGE = 50;

  function render(view, path, ctx) {
    const { ui, api } = ctx;
    const rows = ui.el('ol', { id: 'audit-list', className: 'rows' });
    const more = ui.el('button', { id: 'audit-more', type: 'button', className: 'secondary', hidden: true },
                       'Older changes');
    const line = ui.el('p', { id: 'audit-status', className: 'status', role: 'status' });
    view.append(ui.el('h1', {}, 'Audit log'),
                ui.el('p', { className: 'muted' }, 'Every change made to this site, here or by the operator.'),
                rows, more, line);
    let next = null;

    async function load() {
      const reply = await api.get('/audit' + api.query({ limit: PAGE, cursor: next }));
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      reply.body.entries.forEach((e) => {
        // The actor is "operator" or an administrator's user id.
        const who = e.actor === 'operator' ? 'the operator'
          : String(e.actor) === String(ctx.me.user_id) ? 'you'
            : ui.el('a', { href: '#users/' + encodeURIComponent(e.actor) }, 'user ' + e.actor);
        rows.appendChild(ui.el('li', {},
          ui.el('span', {}, ui.el('code', {}, e.action), ' ', e.target, e.detail ? ' — ' + e.detail : ''),
          ui.el('span', { className: 'muted' }, 'by ', who, ', ', ui.time(e.created_at),
                e.ip ? ' from ' + e.ip : '')));
      });
      next = reply.body.next_cursor;
      more.hidden = !next;
      if (!rows.children.length) ui.status(line, 'No change yet.');
    }

    more.addEventListener('click', () => ui.busy(more, load));
    load();
  }

  (window.svcSections = window.svcSections || []).push({ id: 'audit', title: 'Audit', render });
})();
