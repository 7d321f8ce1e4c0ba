// The console's Admins section (#admins): the site's administrators (GET
// /admin/sites/{site}/admins, owners first); an owner adds one by address
// with a role (POST .../admins; the same again changes the role) and
// removes one after a confirmation (DELETE .../admins/{user_id}, which wants
// a sign-in of the last 10 minutes: api.js asks for it). Others see the list.
'use strict';

(function () {
  const ROLE_WORDS = {
    owner: 'Owner: everything, the site\'s administrators included',
    admin: 'Admin: everything but the administrators, the site key and client secrets',
    viewer: 'Viewer: reads only',
  };

  function render(view, path, ctx) {
    const { ui, api } = ctx;
    const owner = ctx.may('owner');
    const rows = ui.el('ul', { id: 'admins-list', className: 'rows' });
    const line = ui.el('p', { id: 'admins-status', className: 'status', role: 'status' });
    view.append(ui.el('h1', {}, 'Administrators'),
                ui.el('p', { className: 'muted' }, owner ? 'Who may run this site here, and with which role.'
                                                         : 'Who may run this site here. Only an owner changes this.'),
                rows, line);

    async function load() {
      const reply = await api.get('/admins');
      rows.textContent = '';
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      reply.body.admins.forEach((a) => {
        const li = ui.el('li', {},
          ui.el('span', {}, a.email),
          ui.el('strong', { className: 'badge' + (a.role === 'owner' ? '' : ' plain') }, a.role),
          ui.el('span', { className: 'muted' }, 'since ', ui.time(a.granted_at)));
        if (owner) {
          const remove = ui.button('Remove', async (b) => {
            if (!(await ui.confirmInline(b, 'Take ' + a.email + '\'s role away?', 'Remove'))) return;
            const reply2 = await ui.busy(b, () => api.call('DELETE', '/admins/' + a.user_id));
            if (reply2.status !== 200) {
              ui.status(line, api.words(reply2), true);
              return b.focus();
            }
            await load();
            ui.status(line, a.email + ' is no longer an administrator of this site.');
          });
          remove.setAttribute('aria-label', 'Remove ' + a.email);
          li.appendChild(remove);
        }
        rows.appendChild(li);
      });
    }

    if (owner) {
      const email = ui.field('admin-email', 'Address of a user of this site',
                             ui.el('input', { type: 'email', autocomplete: 'off' }));
      const select = ui.el('select', {});
      Object.entries(ROLE_WORDS).forEach(([role, text]) =>
        select.appendChild(ui.el('option', { value: role, selected: role === 'viewer' }, text)));
      const role = ui.field('admin-role', 'Role', select);
      const add = ui.el('button', { id: 'admin-add', type: 'submit' }, 'Add the administrator');
      const addLine = ui.el('p', { id: 'admin-add-status', className: 'status', role: 'status' });
      const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'admin-add-title' },
                           ui.el('h2', { id: 'admin-add-title' }, 'Add an administrator'),
                           email.wrap, role.wrap, add, addLine);
      formEl.addEventListener('submit', async (event) => {
        event.preventDefault();
        ui.fieldError(email, '');
        ui.status(addLine, '');
        const address = email.input.value.trim();
        if (!address) return ui.fieldError(email, 'Type the address of a user of this site.');
        const reply = await ui.busy(add, () => api.call('POST', '/admins', { email: address, role: select.value }));
        if (reply.status === 404) return ui.fieldError(email, api.words(reply));
        if (reply.status !== 200) {
          const bad = api.fieldMessage(reply, 'email');
          if (bad) return ui.fieldError(email, bad);
          const badRole = api.fieldMessage(reply, 'role');
          if (badRole) return ui.fieldError(role, badRole);
          return ui.status(addLine, api.words(reply), true);
        }
        email.input.value = '';
        await load();
        ui.status(addLine, reply.body.admin.email + ' is now ' + reply.body.admin.role + ' of this site.');
      });
      view.append(formEl);
    }
    load();
  }

  (window.svcSections = window.svcSections || []).push({ id: 'admins', title: 'Admins', render });
})();
