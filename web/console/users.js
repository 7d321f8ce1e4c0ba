// The console's Users section (#users, #users/ID): find users by typing the
// start of an address (GET /admin/sites/{site}/users?q=, keyset pages with
// "More"), and a user's page (GET .../users/{id}): profile, verified, second
// factor, passkeys, sessions ("Safari on iPhone · 3 minutes ago"), linked
// identities, and for an admin or owner: disable, enable (PATCH), end the
// sessions (DELETE .../sessions), remove the second factor, send a password
// reset or the verification mail again, delete (the address typed to
// confirm), and invite a user (POST .../users). Everything from the API is
// shown as text.
'use strict';

(function () {
  const PAGE = 20;
  const DEBOUNCE_MS = 250;
  // What the list shows, kept while a user's page is open (and drawn again
  // from the server when the list comes back).
  const list = { q: '', rows: [], next: null, loaded: false };
  let asked = 0;  // the number of the newest search: older replies are dropped
  let notice = '';  // what the list says when it comes back (a deleted user)

  function userLine(ui, user) {
    const name = ui.fullName(user);
    return ui.el('li', {},
      ui.el('a', { href: '#users/' + user.id, className: 'user-link' }, user.email),
      name ? ui.el('span', { className: 'muted' }, name) : null,
      user.active ? null : ui.el('strong', { className: 'badge off' }, 'disabled'),
      user.email_verified ? null : ui.el('strong', { className: 'badge warn' }, 'not verified'));
  }

  function renderList(view, ctx) {
    const { ui, api } = ctx;
    const search = ui.field('user-search', 'Find a user by address',
                            ui.el('input', { type: 'search', autocomplete: 'off', spellcheck: false,
                                             value: list.q }),
                            'Type the start of an address: the list follows as you type.');
    const rows = ui.el('ul', { id: 'users-list', className: 'rows' });
    const more = ui.el('button', { id: 'users-more', type: 'button', className: 'secondary', hidden: true },
                       'More users');
    const line = ui.el('p', { id: 'users-status', className: 'status', role: 'status' });
    view.append(ui.el('h1', {}, 'Users'), ui.el('form', { role: 'search', 'aria-label': 'Users' }, search.wrap),
                rows, more, line);
    if (ctx.may('admin')) view.append(inviteForm(ctx));
    const told = notice;
    notice = '';

    function draw() {
      rows.textContent = '';
      list.rows.forEach((u) => rows.appendChild(userLine(ui, u)));
      more.hidden = !list.next;
      if (told) {
        ui.status(line, told);
      } else if (!list.rows.length) {
        ui.status(line, list.q ? 'No user\'s address begins with "' + list.q + '".' : 'This site has no users yet.');
      } else {
        ui.status(line, 'Showing ' + list.rows.length + ' user' + (list.rows.length === 1 ? '' : 's') +
                  (list.q ? ' whose address begins with "' + list.q + '"' : '') + (list.next ? '; there are more.' : '.'));
      }
    }

    async function load(append) {
      const mine = ++asked;
      const cursor = append ? list.next : null;
      const reply = await api.get('/users' + api.query({ q: list.q, limit: PAGE, cursor }));
      if (mine !== asked) return;
      if (reply.status !== 200) {
        const bad = api.fieldMessage(reply, 'q');
        if (bad) return ui.fieldError(search, bad);
        return ui.status(line, api.words(reply), true);
      }
      ui.fieldError(search, '');
      list.rows = append ? list.rows.concat(reply.body.users) : reply.body.users;
      list.next = reply.body.next_cursor;
      list.loaded = true;
      draw();
    }

    let timer = 0;
    search.input.addEventListener('input', () => {
      list.q = search.input.value.trim();
      clearTimeout(timer);
      timer = setTimeout(() => load(false), DEBOUNCE_MS);
    });
    search.wrap.closest('form').addEventListener('submit', (event) => {
      event.preventDefault();
      clearTimeout(timer);
      list.q = search.input.value.trim();
      load(false);
    });
    more.addEventListener('click', () => ui.busy(more, () => load(true)));
    // Back from a user's page: the list as it was at once, then as it is now.
    if (list.loaded) draw();
    load(false);
  }

  function facts(ui, pairs) {
    const dl = ui.el('dl', { className: 'facts' });
    pairs.forEach(([term, value]) => dl.append(ui.el('dt', {}, term), ui.el('dd', {}, value)));
    return dl;
  }

  // Fetches the user, then draws the page in place of what `view` showed
  // (so a sign-in asked for meanwhile leaves the old page in sight), with
  // `message` in its status line and the focus there when given.
  async function renderUser(view, id, ctx, message) {
    const { ui, api } = ctx;
    const reply = await api.get('/users/' + encodeURIComponent(id));
    view.textContent = '';
    const heading = ui.el('h1', {}, 'User');
    const line = ui.el('p', { id: 'user-status', className: 'status', role: 'status' });
    view.append(ui.el('p', {}, ui.el('a', { href: '#users' }, '← All users')), heading);
    if (reply.status !== 200) {
      heading.textContent = reply.status === 404 ? 'No such user' : 'User';
      view.append(line);
      return ui.status(line, api.words(reply), true);
    }
    const u = reply.body.user;
    heading.textContent = u.email;
    const factor = u.totp ? 'Authenticator app (' + u.recovery_codes_left + ' recovery code' +
                            (u.recovery_codes_left === 1 ? '' : 's') + ' left)' : 'None';
    view.append(facts(ui, [
      ['Name', ui.fullName(u) || '—'],
      ['Status', u.active ? 'Active' : 'Disabled: cannot sign in'],
      ['Address', u.email_verified ? 'Verified' : 'Not verified'],
      ['Second factor', factor + (u.passkeys.length ? '; ' + u.passkeys.length + ' passkey' +
                                  (u.passkeys.length === 1 ? '' : 's') : '')],
      ['Last sign-in', ui.time(u.last_sign_in, 'not known (no open session)')],
    ]));

    const redraw = (text) => renderUser(view, id, ctx, text);
    if (ctx.may('admin')) {
      const toggle = ui.button(u.active ? 'Disable' : 'Enable', async (b) => {
        const reply2 = await ui.busy(b, () => api.call('PATCH', '/users/' + u.id, { active: !u.active }));
        if (reply2.status !== 200) return ui.status(line, api.words(reply2), true);
        await redraw(u.active ? 'Disabled: ' + u.email + ' cannot sign in, and every session ended.'
                              : 'Enabled: ' + u.email + ' can sign in again.');
      }, u.active ? 'danger' : 'secondary');
      toggle.id = 'user-toggle';
      const end = ui.button('End sessions', async (b) => {
        if (!(await ui.confirmInline(b, 'End every session of ' + u.email + '?', 'End sessions'))) return;
        const reply2 = await ui.busy(b, () => api.call('DELETE', '/users/' + u.id + '/sessions'));
        if (reply2.status !== 200) return ui.status(line, api.words(reply2), true);
        const n = reply2.body.ended;
        await redraw(n === 0 ? 'There was no session to end.' : 'Ended ' + n + ' session' + (n === 1 ? '' : 's') + '.');
      }, 'secondary');
      end.id = 'user-end-sessions';
      const actions = ui.el('div', { className: 'actions' }, toggle, end);
      // A mail or a change, its reply in the status line.
      const act = (label, id, method, path, done, question) => {
        const b = ui.button(label, async () => {
          if (question && !(await ui.confirmInline(b, question, label))) return;
          const reply2 = await ui.busy(b, () => api.call(method, '/users/' + u.id + path));
          if (reply2.status !== 200) return ui.status(line, api.words(reply2), true);
          await redraw(done(reply2.body));
        });
        b.id = id;
        actions.append(b);
      };
      if (u.totp) {
        act('Remove the second factor', 'user-mfa-reset', 'DELETE', '/second-factor',
            (b) => (b.removed ? 'The second factor is removed: ' + u.email + ' signs in with the password alone.'
                              : 'There was no second factor to remove.'),
            'Remove the second factor of ' + u.email + ' (a lost phone)?');
      }
      act('Send a password reset', 'user-password-reset', 'POST', '/password-reset',
          () => 'A link to choose a new password is on its way to ' + u.email + '.');
      if (!u.email_verified) {
        act('Send the verification mail again', 'user-verification', 'POST', '/verification-mail',
            () => 'A new verification link is on its way to ' + u.email + '.');
      }
      const del = ui.button('Delete…', () => askDelete(view, u, ctx, del, line), 'danger');
      del.id = 'user-delete';
      actions.append(del);
      view.append(actions);
    }
    view.append(line);

    view.append(ui.el('h2', {}, 'Sessions'));
    const sessions = ui.el('ul', { id: 'user-sessions', className: 'rows' });
    if (!u.sessions.length) sessions.appendChild(ui.el('li', {}, 'No open session.'));
    u.sessions.forEach((s) => sessions.appendChild(ui.el('li', {},
      ui.el('span', {}, s.device + ' · ', ui.time(s.last_seen_at || s.signed_in_at)),
      ui.el('span', { className: 'muted' }, 'signed in ', ui.time(s.signed_in_at), s.ip ? ' from ' + s.ip : ''))));
    view.append(sessions);

    view.append(ui.el('h2', {}, 'Passkeys'));
    const keys = ui.el('ul', { id: 'user-passkeys', className: 'rows' });
    if (!u.passkeys.length) keys.appendChild(ui.el('li', {}, 'No passkey.'));
    u.passkeys.forEach((p) => keys.appendChild(ui.el('li', {},
      ui.el('span', {}, p.name || 'Passkey', p.synced ? ' (synced)' : ''),
      ui.el('span', { className: 'muted' }, 'added ', ui.time(p.created_at), ', last used ',
            ui.time(p.last_used_at, 'never')))));
    view.append(keys);

    view.append(ui.el('h2', {}, 'Linked sign-ins'));
    const ids = ui.el('ul', { className: 'rows' });
    if (!u.identities.length) ids.appendChild(ui.el('li', {}, 'None: this user signs in with this site only.'));
    u.identities.forEach((i) => ids.appendChild(ui.el('li', {}, String(i.provider || ''), ' ',
                                                      String(i.subject || ''))));
    view.append(ids);

    if (message) {
      ui.status(line, message);
      line.tabIndex = -1;
      line.focus();
    }
  }

  // Delete with a typed confirmation: the address, exactly.
  function askDelete(view, u, ctx, trigger, line) {
    const { ui, api } = ctx;
    if (view.querySelector('#delete-form')) return;
    ui.typedConfirm({
      after: trigger.closest('.actions'), trigger, id: 'delete', expected: u.email, name: 'Delete ' + u.email,
      label: 'Type ' + u.email + ' to delete this user', mismatch: 'Type the address exactly: ' + u.email,
      hint: 'The user, their sessions, factors and data are deleted; this cannot be undone.', yes: 'Delete the user',
      act: () => api.call('DELETE', '/users/' + u.id), words: api.words,
      done: () => {
        notice = u.email + ' is deleted.';
        location.hash = '#users';
      },
    });
    ui.status(line, '');
  }

  // The invitation form under the list (admin and owner).
  function inviteForm(ctx) {
    const { ui, api } = ctx;
    const email = ui.field('invite-email', 'E-mail', ui.el('input', { type: 'email', autocomplete: 'off' }));
    const first = ui.field('invite-first', 'First name (optional)', ui.el('input', { type: 'text', autocomplete: 'off' }));
    const last = ui.field('invite-last', 'Last name (optional)', ui.el('input', { type: 'text', autocomplete: 'off' }));
    const send = ui.el('button', { id: 'invite-submit', type: 'submit' }, 'Send the invitation');
    const line = ui.el('p', { id: 'invite-status', className: 'status', role: 'status' });
    const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'invite-title' },
                         ui.el('h2', { id: 'invite-title' }, 'Invite a user'),
                         ui.el('p', { className: 'muted' }, 'They get a mail with a link to choose their password.'),
                         email.wrap, first.wrap, last.wrap, send, line);
    const fields = { email, first_name: first, last_name: last };
    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      Object.values(fields).forEach((f) => ui.fieldError(f, ''));
      ui.status(line, '');
      const address = email.input.value.trim();
      if (!address) return ui.fieldError(email, 'Type the address of the user to invite.');
      const body = { email: address };
      if (first.input.value.trim()) body.first_name = first.input.value.trim();
      if (last.input.value.trim()) body.last_name = last.input.value.trim();
      const reply = await ui.busy(send, () => api.call('POST', '/users', body));
      if (reply.status !== 201) {
        const bad = Object.entries(fields).find(([name]) => api.fieldMessage(reply, name));
        if (bad) return ui.fieldError(bad[1], api.fieldMessage(reply, bad[0]));
        if (reply.status === 409 && /exists/.test((reply.body && reply.body.message) || '')) {
          return ui.fieldError(email, 'This site already has a user with that address.');
        }
        return ui.status(line, api.words(reply), true);
      }
      Object.values(fields).forEach((f) => { f.input.value = ''; });
      const user = reply.body.user;
      line.textContent = '';
      line.classList.remove('bad');
      line.append('The invitation is on its way to ', ui.el('a', { href: '#users/' + user.id }, user.email), '.');
    });
    return formEl;
  }

  function render(view, path, ctx) {
    if (path[0]) return renderUser(view, path[0], ctx);
    renderList(view, ctx);
    return null;
  }

  (window.svcSections = window.svcSections || []).push({ id: 'users', title: 'Users', render });
})();
