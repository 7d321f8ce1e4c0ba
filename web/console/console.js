// The site console (/console/?site=N, docs/console.md): the frame. It reads
// the site from the address, signs the administrator in (signin.js), asks
// the management API who they are on the site (GET /admin/sites/{site}:
// me.role), and then shows one section at a time under the navigation.
//
// A section is one script that pushes itself onto window.svcSections
// before this one runs (index.html loads them in the navigation's order):
//   { id: 'users', title: 'Users',
//     render(view, path, ctx) }   // path: the hash's parts after the id
// ctx: { site, me, may(role), api (api.js), ui (ui.js) }; render
// may return a promise (the heading gets the focus once it resolves). The
// hash names the section and what it shows (#users, #users/42, #admins);
// it is never sent to the server.
//
// A sign-in that ends while the page is shown (a 401 of any call) opens a
// dialog with the same sign-in forms over the page; the call is sent again
// once signed in, and nothing on the page is lost.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const api = window.svcApi;
  const ui = window.svcUi;
  const form = window.svcForm;
  const sections = window.svcSections || [];
  const ROLES = { viewer: 1, admin: 2, owner: 3 };
  let site = '';
  let me = null;          // GET /admin/sites/{site}'s `me`
  let accessToken = '';   // for signing out
  let reauth = null;      // { promise, resolve } while the dialog is open
  let rendered = '';      // the hash last drawn

  const ctx = {
    get site() { return site; },
    get me() { return me; },
    may: (role) => !!me && (ROLES[me.role] || 0) >= ROLES[role],
    api,
    ui,
  };

  function general(message) {
    form.setGeneral(message);
    if (message) $('general').focus();
  }

  function showOnly(which) {
    $('signin-panel').hidden = which !== 'signin';
    $('refused').hidden = which !== 'refused';
    $('view').hidden = which !== 'view';
    $('nav').hidden = which !== 'view';
    $('who-line').hidden = which === 'signin';
    document.body.classList.toggle('narrow', which !== 'view');  // a form alone: the account centre's width
  }

  // --- signing in and out --------------------------------------------------

  function takeToken(token) {
    api.setToken(token.account_token);
    accessToken = token.access_token || '';
    if (reauth) {
      const { resolve } = reauth;
      closeReauth();
      resolve(true);
      // Someone else signed in over the page: their role decides what it shows.
      if (token.user && me && token.user.email !== me.email) loadSite(token.user.email);
      return;
    }
    loadSite(token.user && token.user.email);
  }

  async function loadSite(email) {
    general('');
    const reply = await api.call('GET', '');
    const message = reply.body && reply.body.message;
    if (reply.status === 200) {
      me = reply.body.me;
      $('site-name').textContent = reply.body.site.name;
      $('site').hidden = false;
      $('who').textContent = me.email;
      $('role').textContent = me.role;
      buildNav();
      showOnly('view');
      rendered = '';
      route(true);
      return;
    }
    $('who').textContent = email || '';
    $('role').textContent = '';
    if (reply.status === 403 && message === 'Second factor required for site administration') {
      refuse('Turn on a second factor first', 'Site administration needs a second factor. Your account signs in ' +
             'with a password alone: turn on an authenticator app (or add a passkey) in your account first.', true);
    } else if (reply.status === 403) {
      refuse('No role on this site', 'Your account holds no role on this site. An owner of the site, or the ' +
             'operator of this server, can give you one.', false);
    } else {
      refuse('The console cannot open', api.words(reply), false);
    }
  }

  function refuse(title, text, enrol) {
    $('refused-title').textContent = title;
    $('refused-text').textContent = text;
    $('enrol').hidden = !enrol;
    showOnly('refused');
    $('refused-title').focus();
  }

  async function signOut() {
    if (accessToken) await form.postJson('/auth/sign-out', {}, accessToken);
    api.setToken('');
    accessToken = '';
    me = null;
    rendered = '';
    form.keepOnlySite(site);  // the next sign-in starts on the first section
    $('view').textContent = '';
    $('role').textContent = '';
    showOnly('signin');
    window.svcSignIn.restart('');
  }

  // A 401 while the page is shown: the sign-in forms in a dialog over it.
  // Resolves to true once signed in again, false when the dialog is closed.
  function signInAgain(why) {
    if (!me) return Promise.resolve(false);
    if (reauth) return reauth.promise;
    let resolve;
    const promise = new Promise((r) => { resolve = r; });
    reauth = { promise, resolve };
    $('reauth-why').textContent = why === 'Recent sign-in required, log in again'
      ? 'This change needs a sign-in of the last 10 minutes. Sign in again to go on: what is on the page stays.'
      : 'Your sign-in has ended. Sign in again to go on: what is on the page stays as it is.';
    $('reauth-slot').appendChild($('signin-panel'));
    $('signin-panel').hidden = false;
    $('reauth').showModal();
    window.svcSignIn.restart(me.email);
    return promise;
  }

  function closeReauth() {
    const pending = reauth;
    reauth = null;
    $('signin-home').appendChild($('signin-panel'));
    $('signin-panel').hidden = true;
    if ($('reauth').open) $('reauth').close();
    return pending;
  }

  function cancelReauth() {
    const pending = closeReauth();
    if (pending) pending.resolve(false);
  }

  // --- the sections ----------------------------------------------------------

  function buildNav() {
    const list = $('nav-list');
    list.textContent = '';
    sections.forEach((s) => {
      list.appendChild(ui.el('li', {}, ui.el('a', { href: '#' + s.id, id: 'nav-' + s.id }, s.title)));
    });
  }

  // Draws the section the hash names (the first one when it names none).
  function route(force) {
    if (!me) return;
    const parts = location.hash.replace(/^#/, '').split('/').filter(Boolean).map(decodeURIComponent);
    const section = sections.find((s) => s.id === parts[0]) || sections[0];
    const hash = '#' + [section.id].concat(parts.slice(1)).join('/');
    if (!force && hash === rendered) return;
    rendered = hash;
    sections.forEach((s) => {
      const link = $('nav-' + s.id);
      if (s === section) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    });
    general('');
    const view = $('view');
    view.textContent = '';
    // A section may draw after a fetch (render returns its promise): the
    // focus goes to its heading once drawn, unless the page moved on.
    Promise.resolve(section.render(view, parts.slice(1), ctx)).then(() => {
      const heading = view.querySelector('h1');
      if (heading && rendered === hash && !view.contains(document.activeElement)) {
        heading.tabIndex = -1;
        heading.focus();
      }
    });
  }

  // --- start -----------------------------------------------------------------

  async function start() {
    site = form.siteOfAddress();
    form.keepOnlySite(site);
    if (!site) {
      showOnly('none');
      return general('Open the console with its site in the address: /console/?site=N, N the site\'s number.');
    }
    api.setSite(site);
    api.onSignInNeeded(signInAgain);
    $('enrol-link').href = '/account/?site=' + site;
    let details = null;
    if (!(await form.showSite(site, (s) => { details = s; }))) {
      showOnly('none');
      return general('This server has no site ' + site + '. Check the number in the address (?site=N).');
    }
    window.svcSignIn.init(site, details, takeToken);
    $('sign-out').addEventListener('click', signOut);
    $('refused-again').addEventListener('click', signOut);
    $('reauth-cancel').addEventListener('click', cancelReauth);
    $('reauth').addEventListener('cancel', (event) => { event.preventDefault(); cancelReauth(); });
    window.addEventListener('hashchange', () => route(false));
    // The fragment names sections: the skip link moves the focus instead.
    $('skip').addEventListener('click', (event) => {
      event.preventDefault();
      const target = ['view', 'refused', 'signin-panel'].map($).find((e) => !e.hidden);
      const heading = target && Array.from(target.querySelectorAll('h1')).find((h) => h.offsetParent !== null);
      if (heading) {
        heading.tabIndex = -1;
        heading.focus();
      }
    });
    showOnly('signin');
    $('email').focus();
  }

  start();
})();
