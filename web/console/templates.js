// The console's Templates section (#templates, #templates/{id}): the site's
// e-mail templates with their enabled state and locale variants (GET
// /admin/sites/{site}/templates), and one template's editor: subject and
// HTML, the [fieldname] placeholders they use with a sample value each, a
// live preview of the HTML and text parts as svc-sender makes them (POST
// .../preview with the unsaved subject and content), a test send to the
// administrator's own address, the versions with a line diff of two, and a
// roll back. The HTML part is shown in an iframe with sandbox="" (no
// script, an opaque origin) from srcdoc, under the console's own policy.
// A save carries the version it was made on: when someone else saved
// meanwhile (409), the unsaved text stays in the editor and the form says
// so. An admin creates a template (#templates/new: an event and a locale,
// POST .../templates), a locale variant of one (#templates/new/{id}: its
// event and text to start from) and deletes one (its event typed to
// confirm, DELETE .../templates/{id}). A viewer previews but sees no button
// that changes anything.
'use strict';

(function () {
  const PAGE = 100;
  const PREVIEW_DELAY_MS = 400;
  let notice = '';  // said once by the next page drawn (after a create or a delete)

  // `notice` on `line`, with the focus, once.
  function sayNotice(ui, line) {
    if (!notice) return;
    ui.status(line, notice);
    notice = '';
    line.tabIndex = -1;
    line.focus();
  }

  function localeName(locale) {
    return locale ? 'locale ' + locale : 'default locale';
  }

  function actorWords(actor, ctx) {
    if (actor === 'operator') return 'the operator';
    return String(actor) === String(ctx.me.user_id) ? 'you' : 'user ' + actor;
  }

  // The lines of `a` and `b` as [kind, line], kind ' ' (both), '-' (a
  // only) or '+' (b only): a longest common subsequence of lines.
  function lineDiff(a, b) {
    const x = a.split('\n');
    const y = b.split('\n');
    const n = x.length;
    const m = y.length;
    const len = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        len[i][j] = x[i] === y[j] ? len[i + 1][j + 1] + 1 : Math.max(len[i + 1][j], len[i][j + 1]);
      }
    }
    const out = [];
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) {
        out.push([' ', x[i]]);
        i++;
        j++;
      } else if (len[i + 1][j] >= len[i][j + 1]) {
        out.push(['-', x[i++]]);
      } else {
        out.push(['+', y[j++]]);
      }
    }
    while (i < n) out.push(['-', x[i++]]);
    while (j < m) out.push(['+', y[j++]]);
    return out;
  }

  // --- the list ----------------------------------------------------------------

  function renderList(view, ctx) {
    const { ui, api } = ctx;
    const rows = ui.el('ul', { id: 'templates-list', className: 'rows' });
    const more = ui.el('button', { id: 'templates-more', type: 'button', className: 'secondary', hidden: true },
                       'More templates');
    const line = ui.el('p', { id: 'templates-status', className: 'status', role: 'status' });
    view.append(ui.el('h1', {}, 'E-mail templates'),
                ui.el('p', { className: 'muted' }, 'The mail this site sends for each event, in each language. ' +
                      'Open one to edit it, preview it with sample data and see its versions.'),
                ctx.may('admin') ? ui.el('p', {}, ui.el('a', { id: 'templates-new', href: '#templates/new' },
                                                        'New template')) : null,
                rows, more, line);
    let next = null;

    async function load() {
      const reply = await api.get('/templates' + api.query({ limit: PAGE, cursor: next }));
      if (reply.status !== 200) return ui.status(line, api.words(reply), true);
      reply.body.templates.forEach((t) => {
        rows.appendChild(ui.el('li', {},
          ui.el('a', { href: '#templates/' + t.id, className: 'user-link' }, t.event),
          ui.el('span', { className: 'muted' }, localeName(t.locale)),
          ui.el('strong', { className: 'badge' + (t.enabled ? '' : ' off') }, t.enabled ? 'enabled' : 'disabled'),
          ui.el('span', {}, t.subject)));
      });
      next = reply.body.next_cursor;
      more.hidden = !next;
      if (!rows.children.length) ui.status(line, 'This site has no template of its own yet: it sends the built-in ones.');
      sayNotice(ui, line);
    }

    more.addEventListener('click', () => ui.busy(more, load));
    return load();
  }

  // --- a new template ----------------------------------------------------------

  // The form of a new template; `fromId`: a template whose event and text a
  // locale variant starts from.
  async function renderNew(view, fromId, ctx) {
    const { ui, api } = ctx;
    view.append(ui.el('p', {}, ui.el('a', { href: '#templates' }, 'All templates')));
    let from = null;
    if (fromId) {
      const r = await api.get('/templates/' + encodeURIComponent(fromId));
      if (r.status === 200) from = r.body.template;
    }
    const fields = {
      event: ui.field('tpl-new-event', 'Event', ui.el('input', { type: 'text', autocomplete: 'off', spellcheck: false }),
                      'What the mail is sent for, e.g. order-shipped (letters, digits and . _ : -).'),
      locale: ui.field('tpl-new-locale', 'Locale', ui.el('input', { type: 'text', autocomplete: 'off', spellcheck: false }),
                       'Empty for the default; de, de-AT, fr-CA… for a variant in that language.'),
      subject: ui.field('tpl-new-subject', 'Subject', ui.el('input', { type: 'text', autocomplete: 'off' })),
      content: ui.field('tpl-new-content', 'HTML', ui.el('textarea', { rows: 10, spellcheck: false }),
                        'Write [fieldname] where a value of the mail goes, e.g. [name].'),
    };
    const enabled = ui.el('input', { type: 'checkbox', id: 'tpl-new-enabled', checked: true });
    const create = ui.el('button', { id: 'tpl-create', type: 'submit' }, 'Create the template');
    const line = ui.el('p', { id: 'tpl-create-status', className: 'status', role: 'status' });
    const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'tpl-new-title', className: 'editor' },
                         Object.values(fields).map((f) => f.wrap),
                         ui.el('div', { className: 'check' }, enabled,
                               ui.el('label', { for: 'tpl-new-enabled' }, 'Enabled: the site sends this mail')),
                         create, line);
    view.append(ui.el('h1', { id: 'tpl-new-title' }, from ? 'New locale variant of ' + from.event : 'New e-mail template'),
                from ? ui.el('p', { className: 'muted' }, 'It starts from the text of the ' + localeName(from.locale) +
                             ': type its locale, then translate it.') : null,
                formEl);
    if (from) {
      fields.event.input.value = from.event;
      fields.subject.input.value = from.subject;
      fields.content.input.value = from.content;
    }
    if (!ctx.may('admin')) {
      create.hidden = true;
      ui.status(line, api.words({ status: 403, body: { message: 'Forbidden' } }), true);
    }

    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!ctx.may('admin')) return;
      Object.values(fields).forEach((f) => ui.fieldError(f, ''));
      ui.status(line, '');
      const value = (name) => (name === 'content' ? fields[name].input.value : fields[name].input.value.trim());
      const empty = ['event', 'subject', 'content'].find((name) => !value(name));
      if (empty) return ui.fieldError(fields[empty], 'This is needed.');
      const body = { event: value('event'), locale: value('locale'), subject: value('subject'),
                     content: value('content'), enabled: enabled.checked };
      const r = await ui.busy(create, () => api.call('POST', '/templates', body));
      if (r.status === 200) {
        notice = 'Created as version ' + r.body.template.version + '.';
        location.hash = '#templates/' + r.body.template.id;
        return;
      }
      if (r.status === 409) {
        return ui.fieldError(fields.locale, 'This event has a template in this locale already: open it from the list.');
      }
      const bad = Object.keys(fields).find((name) => api.fieldMessage(r, name));
      if (bad) return ui.fieldError(fields[bad], api.fieldMessage(r, bad));
      ui.status(line, api.words(r), true);
    });
  }

  // --- one template ------------------------------------------------------------

  async function renderEditor(view, id, ctx) {
    const { ui, api } = ctx;
    const write = ctx.may('admin');
    const base = '/templates/' + encodeURIComponent(id);
    const reply = await api.get(base);
    if (reply.status !== 200) {
      view.append(ui.el('h1', {}, 'E-mail template'),
                  ui.el('p', { id: 'template-status', className: 'status bad', role: 'status' }, api.words(reply)),
                  ui.el('a', { href: '#templates' }, 'All templates'));
      return;
    }
    let template = reply.body.template;
    const samples = {};  // placeholder -> its sample value, kept as fields come and go

    const heading = ui.el('h1', {}, template.event);
    const where = ui.el('p', { id: 'template-where', className: 'muted' });
    const subject = ui.field('tpl-subject', 'Subject', ui.el('input', { type: 'text', autocomplete: 'off' }));
    const content = ui.field('tpl-content', 'HTML', ui.el('textarea', { rows: 14, spellcheck: false }),
                             'Write [fieldname] where a value of the mail goes, e.g. [name].');
    const enabled = ui.el('input', { type: 'checkbox', id: 'tpl-enabled' });
    const enabledWrap = ui.el('div', { className: 'check' }, enabled, ui.el('label', { for: 'tpl-enabled' },
                              'Enabled: the site sends this mail'));
    const save = ui.el('button', { id: 'tpl-save', type: 'submit' }, 'Save');
    const saveLine = ui.el('p', { id: 'tpl-save-status', className: 'status', role: 'status' });
    const formEl = ui.el('form', { noValidate: true, 'aria-labelledby': 'tpl-edit-title', className: 'editor' },
                         ui.el('h2', { id: 'tpl-edit-title' }, 'Edit'), subject.wrap, content.wrap,
                         write ? enabledWrap : null, write ? save : null, saveLine);

    const placeholders = ui.el('ul', { id: 'tpl-placeholders', className: 'chips' });
    const sampleFields = ui.el('div', { id: 'tpl-samples' });
    const dataError = ui.el('p', { id: 'tpl-data-error', className: 'error', hidden: true });
    const sampleBox = ui.el('section', { 'aria-labelledby': 'tpl-samples-title' },
                            ui.el('h2', { id: 'tpl-samples-title' }, 'Placeholders and sample data'),
                            ui.el('p', { className: 'muted' }, 'The fields the subject and HTML use; a value typed ' +
                                  'here fills its field in the preview and the test mail.'),
                            placeholders, sampleFields, dataError);

    const previewSubject = ui.el('p', { id: 'tpl-preview-subject' });
    const frame = ui.el('iframe', { id: 'tpl-preview-html', title: 'The HTML part of the mail' });
    frame.setAttribute('sandbox', '');  // no script, no form, no navigation, an opaque origin
    frame.setAttribute('referrerpolicy', 'no-referrer');
    const text = ui.el('pre', { id: 'tpl-preview-text', className: 'mail-text', tabIndex: 0,
                                'aria-label': 'The text part of the mail' });
    const previewLine = ui.el('p', { id: 'tpl-preview-status', className: 'status', role: 'status' });
    const previewBox = ui.el('section', { 'aria-labelledby': 'tpl-preview-title', className: 'preview' },
                             ui.el('h2', { id: 'tpl-preview-title' }, 'Preview'),
                             ui.el('p', {}, ui.el('strong', {}, 'Subject: '), previewSubject),
                             ui.el('h3', {}, 'HTML part'), frame, ui.el('h3', {}, 'Text part'), text, previewLine);

    const links = ui.el('p', { className: 'actions' }, ui.el('a', { href: '#templates' }, 'All templates'));
    view.append(links, heading, where, formEl, sampleBox, previewBox);
    if (write) {
      links.append(ui.el('a', { id: 'tpl-variant', href: '#templates/new/' + template.id }, 'Add a locale variant'));
      const remove = ui.el('button', { id: 'tpl-delete', type: 'button', className: 'danger small' }, 'Delete');
      remove.setAttribute('aria-label', 'Delete this template');
      links.append(remove);
      remove.addEventListener('click', () => {
        if (view.querySelector('#tpl-delete-form')) return view.querySelector('#tpl-delete-confirm').focus();
        const what = template.event + ' (' + localeName(template.locale) + ')';
        ui.typedConfirm({
          after: links, trigger: remove, id: 'tpl-delete', expected: template.event, name: 'Delete ' + what,
          label: 'Type ' + template.event + ' to delete this template, ' + localeName(template.locale),
          mismatch: 'Type the event exactly: ' + template.event, yes: 'Delete the template',
          hint: 'The template and all its versions are deleted; this cannot be undone.',
          act: () => api.call('DELETE', base), words: api.words,
          done: () => {
            notice = what + ' is deleted.';
            location.hash = '#templates';
          },
        });
      });
    }

    function showTemplate(t) {
      template = t;
      where.textContent = localeName(t.locale) + ' · version ' + t.version + ' · ' + (t.enabled ? 'enabled' : 'disabled');
      subject.input.value = t.subject;
      content.input.value = t.content;
      enabled.checked = t.enabled;
    }

    function data() {
      const out = {};
      Object.entries(samples).forEach(([name, value]) => { if (value !== '') out[name] = value; });
      return out;
    }

    function showPlaceholders(names) {
      const have = Array.from(placeholders.children).map((li) => li.textContent);
      if (have.join('\n') === names.map((n) => '[' + n + ']').join('\n')) return;
      placeholders.textContent = '';
      names.forEach((n) => placeholders.appendChild(ui.el('li', {}, ui.el('code', {}, '[' + n + ']'))));
      // One sample field per placeholder; a field with the focus stays.
      const kept = new Map(Array.from(sampleFields.querySelectorAll('input')).map((i) => [i.dataset.name, i]));
      const wraps = names.map((n) => {
        const old = kept.get(n);
        if (old) return old.closest('.field');
        if (!(n in samples)) samples[n] = '';
        const input = ui.el('input', { type: 'text', autocomplete: 'off', value: samples[n], 'data-name': n });
        input.addEventListener('input', () => {
          samples[n] = input.value;
          schedule();
        });
        return ui.field('sample-' + n.replace(/[^A-Za-z0-9_-]/g, '_'), 'Sample ' + n, input).wrap;
      });
      sampleFields.textContent = '';
      wraps.forEach((w) => sampleFields.appendChild(w));
      if (!names.length) sampleFields.appendChild(ui.el('p', { className: 'muted' }, 'No placeholder.'));
    }

    function clearErrors() {
      ui.fieldError(subject, '');
      ui.fieldError(content, '');
      dataError.hidden = true;
      dataError.textContent = '';
    }

    // Errors of a 400 next to their field (without moving the focus while
    // typing: `focus` false); true when one was shown.
    function fieldErrors(r, focus) {
      let shown = false;
      [['subject', subject], ['content', content]].forEach(([name, f]) => {
        const message = api.fieldMessage(r, name);
        if (!message) return;
        f.error.textContent = message;
        f.error.hidden = false;
        f.input.setAttribute('aria-invalid', 'true');
        if (focus && !shown) f.input.focus();
        shown = true;
      });
      const bad = api.fieldMessage(r, 'data');
      if (bad) {
        dataError.textContent = bad;
        dataError.hidden = false;
        shown = true;
      }
      return shown;
    }

    let timer = null;
    let asked = 0;
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(preview, PREVIEW_DELAY_MS);
    }

    async function preview() {
      const mine = ++asked;
      const r = await api.call('POST', base + '/preview',
                               { data: data(), subject: subject.input.value, content: content.input.value });
      if (mine !== asked) return;  // a newer preview is on its way
      clearErrors();
      if (r.status !== 200) {
        if (!fieldErrors(r, false)) ui.status(previewLine, api.words(r), true);
        else ui.status(previewLine, 'The preview waits for the text to be fixed.', true);
        return;
      }
      const p = r.body.preview;
      previewSubject.textContent = p.subject;
      frame.srcdoc = p.html;
      text.textContent = p.text;
      showPlaceholders(p.placeholders || []);
      ui.status(previewLine, 'Preview up to date.');
    }

    subject.input.addEventListener('input', schedule);
    content.input.addEventListener('input', schedule);

    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!write) return;
      clearErrors();
      ui.status(saveLine, '');
      const body = { version: template.version, subject: subject.input.value, content: content.input.value,
                     enabled: enabled.checked };
      const r = await ui.busy(save, () => api.call('PATCH', base, body));
      if (r.status === 200) {
        const kept = { subject: subject.input.value, content: content.input.value };
        showTemplate(r.body.template);
        subject.input.value = kept.subject;
        content.input.value = kept.content;
        ui.status(saveLine, 'Saved as version ' + template.version + '.');
        loadVersions();
        return;
      }
      if (r.status === 409) {
        return ui.status(saveLine, 'Someone else saved this template since you opened it. Your text is still ' +
                         'here, not saved: copy what you need, then open the template again to see theirs ' +
                         '(both versions are kept).', true);
      }
      if (!fieldErrors(r, true)) ui.status(saveLine, api.words(r), true);
    });

    // --- test send ---
    if (write) {
      const sendButton = ui.el('button', { id: 'tpl-test-send', type: 'button', className: 'secondary' },
                               'Send a test to ' + ctx.me.email);
      const sendLine = ui.el('p', { id: 'tpl-test-status', className: 'status', role: 'status' });
      sendButton.addEventListener('click', async () => {
        ui.status(sendLine, '');
        const r = await ui.busy(sendButton, () => api.call('POST', base + '/test-send', { data: data() }));
        if (r.status !== 200) {
          if (api.fieldMessage(r, 'data')) fieldErrors(r, false);
          return ui.status(sendLine, api.words(r), true);
        }
        ui.status(sendLine, 'The saved template, filled with the sample data, is on its way to ' + r.body.to + '.');
      });
      previewBox.append(ui.el('h3', {}, 'Test'),
                        ui.el('p', { className: 'muted' }, 'Sends the saved version with the sample data to your ' +
                              'own address only.'), sendButton, sendLine);
    }

    // --- versions ---
    const versionRows = ui.el('ol', { id: 'tpl-versions', className: 'rows' });
    const fromSelect = ui.el('select', {});
    const toSelect = ui.el('select', {});
    const fromField = ui.field('diff-from', 'Compare version', fromSelect);
    const toField = ui.field('diff-to', 'with version', toSelect);
    const compare = ui.el('button', { id: 'diff-show', type: 'submit', className: 'secondary' }, 'Show the difference');
    const diffOut = ui.el('div', { id: 'tpl-diff', className: 'diff' });
    const versionLine = ui.el('p', { id: 'tpl-versions-status', className: 'status', role: 'status' });
    const diffForm = ui.el('form', { noValidate: true, className: 'diff-form', 'aria-label': 'Compare two versions' },
                           fromField.wrap, toField.wrap, compare);
    view.append(ui.el('section', { 'aria-labelledby': 'tpl-versions-title' },
                      ui.el('h2', { id: 'tpl-versions-title' }, 'Versions'), versionRows, versionLine, diffForm,
                      diffOut));

    async function loadVersions() {
      const r = await api.get(base + '/versions' + api.query({ limit: PAGE }));
      versionRows.textContent = '';
      if (r.status !== 200) return ui.status(versionLine, api.words(r), true);
      const list = r.body.versions;
      [fromSelect, toSelect].forEach((s, k) => {
        s.textContent = '';
        list.forEach((v, i) => s.appendChild(ui.el('option', { value: String(v.version),
                                                               selected: i === (k === 0 ? Math.min(1, list.length - 1) : 0) },
                                                   'version ' + v.version)));
      });
      list.forEach((v) => {
        const li = ui.el('li', {},
          ui.el('span', {}, 'Version ' + v.version + ' · ' + v.action + ' · ' + v.subject),
          ui.el('span', { className: 'muted' }, 'by ' + actorWords(v.actor, ctx) + ', ', ui.time(v.created_at)));
        if (write && v.version !== template.version) {
          const back = ui.button('Roll back', async (b) => {
            if (!(await ui.confirmInline(b, 'Save version ' + v.version + ' again as the newest?', 'Roll back'))) return;
            const rr = await ui.busy(b, () => api.call('POST', base + '/rollback', { version: v.version }));
            if (rr.status !== 200) {
              ui.status(versionLine, api.words(rr), true);
              return b.focus();
            }
            showTemplate(rr.body.template);
            clearErrors();
            await loadVersions();
            preview();
            ui.status(versionLine, 'Version ' + v.version + ' is the newest again, as version ' +
                      rr.body.template.version + '.');
            heading.tabIndex = -1;
            versionLine.tabIndex = -1;
            versionLine.focus();
          });
          back.setAttribute('aria-label', 'Roll back to version ' + v.version);
          li.appendChild(back);
        }
        versionRows.appendChild(li);
      });
      diffForm.hidden = list.length < 2;
    }

    diffForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      diffOut.textContent = '';
      const [a, b] = await ui.busy(compare, () => Promise.all([fromSelect.value, toSelect.value].map((n) =>
        api.get(base + '/versions/' + encodeURIComponent(n)))));
      if (a.status !== 200 || b.status !== 200) {
        return ui.status(versionLine, api.words(a.status !== 200 ? a : b), true);
      }
      const va = a.body.version;
      const vb = b.body.version;
      const lines = [];
      if (va.subject !== vb.subject) lines.push(['-', 'Subject: ' + va.subject], ['+', 'Subject: ' + vb.subject]);
      lineDiff(va.content, vb.content).forEach((l) => lines.push(l));
      const changed = lines.filter((l) => l[0] !== ' ').length;
      const pre = ui.el('pre', { className: 'mail-text', tabIndex: 0,
                                 'aria-label': 'Version ' + va.version + ' against version ' + vb.version });
      lines.forEach(([kind, textLine]) => {
        const tag = kind === '-' ? 'del' : kind === '+' ? 'ins' : 'span';
        pre.appendChild(ui.el(tag, {}, kind + ' ' + textLine));
        pre.appendChild(document.createTextNode('\n'));
      });
      diffOut.append(ui.el('p', { id: 'tpl-diff-summary', role: 'status' },
                           changed ? changed + ' line(s) differ: - version ' + va.version + ', + version ' + vb.version + '.'
                             : 'The two versions are the same.'), pre);
    });

    showTemplate(template);
    await Promise.all([preview(), loadVersions()]);
    sayNotice(ui, saveLine);
  }

  function render(view, path, ctx) {
    if (path[0] === 'new') return renderNew(view, path[1], ctx);
    return path[0] ? renderEditor(view, path[0], ctx) : renderList(view, ctx);
  }

  (window.svcSections = window.svcSections || []).push({ id: 'templates', title: 'Templates', render });
})();
