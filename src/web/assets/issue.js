// docket's board: an issue's page. One save model for every field: a change is saved as soon
// as it is made (a menu or checkbox at once; a text field when you leave it, or press Enter),
// and the line under the fields says "Saving…", "Saved" or why not. Every write is an
// issues_update tool call, and every one sends the version of the issue's file the page was
// built from (the description and the task checkboxes also the description they started from),
// so a change made meanwhile by an agent, an editor or a merge is never overwritten.
'use strict';

let currentIssue = null;
/** What the page's edits are based on: {id, updatedAt, version, descriptionHash, description}. */
let issueBase = null;
/** Open title or description editors; live updates wait until they close. */
let editors = 0;
/**
 * The assignee or labels field has the focus: live updates wait until it is left, since a
 * re-render would take the field from under the typing (and save what was typed so far).
 */
let fieldFocused = false;
/** A save finished while such a field had the focus: the page shows it once the field is left. */
let reloadOnLeave = false;
let pendingIssue = null;
/** The save line, kept across re-renders: {text, kind}. */
let saveState = null;

function showIssue(id) {
  view = 'issue';
  if (currentIssue !== id) saveState = null;
  currentIssue = id;
  editors = 0;
  fieldFocused = false;
  reloadOnLeave = false;
  pendingIssue = null;
  $('#main').replaceChildren(el('p', { class: 'loading' }, 'Loading…'));
  loadIssue(id);
}

async function loadIssue(id, { live = false } = {}) {
  try {
    const data = await api(`/api/issues/${encodeURIComponent(id)}`);
    if (view !== 'issue' || currentIssue !== id) return;
    if (editors > 0 || fieldFocused) {
      pendingIssue = data;
      if (live && data.version !== issueBase?.version) {
        const note = $('#editor-note');
        if (note) note.textContent = 'This issue changed elsewhere since you started editing; saving will be refused.';
        else if (fieldFocused) setSaveState('Changed elsewhere: shown when you leave this field.', 'idle');
      }
      return;
    }
    renderIssue(data);
  } catch (error) {
    if (view === 'issue' && currentIssue === id && !editors) showError(error, error.status === 404 ? `No issue ${id}` : null);
  }
}

/** `estimatedEffort` -> `Estimated effort`. */
function fieldName(key) {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function field(label, value, key) {
  return value === undefined || value === null || value === '' ? null
    : el('div', { class: 'field', dataset: key ? { key } : {} }, el('dt', {}, label), el('dd', {}, value));
}

function issueLink(item) {
  return el('li', {}, el('a', { href: `/issues/${encodeURIComponent(item.id)}` }, el('span', { class: 'id' }, item.id), ' ', item.title || ''),
    item.status ? el('span', { class: `status-pill status-${item.status}` }, statusName(item.status)) : null);
}

function setSaveState(text, kind) {
  saveState = { text, kind };
  for (const box of document.querySelectorAll('.save-state')) { box.textContent = text; box.dataset.kind = kind; }
}

/** A sidebar field's value as the page compares it: labels as one list. */
const fieldValue = (issue, key) => JSON.stringify(issue[key] ?? null);

/**
 * The version to save a sidebar field on after the file changed elsewhere: the newer file's,
 * when the change did not touch that field (an agent set the priority while you typed labels);
 * null when it did, and the save stays refused.
 */
async function rebased(id, changes) {
  const keys = Object.keys(changes);
  if (!issueBase.fields || !keys.every((k) => k in issueBase.fields)) return null;
  const fresh = await api(`/api/issues/${encodeURIComponent(id)}`);
  const untouched = keys.every((k) => fieldValue(fresh.issue, k) === issueBase.fields[k]);
  return untouched ? fresh.version : null;
}

/**
 * Saves `changes` (a tool call behind `path`, PATCH /api/issues/ID by default) and says so on
 * the save line. True when it was saved.
 */
async function save(label, changes, { path, method = 'PATCH' } = {}) {
  const id = issueBase.id;
  setSaveState(`Saving ${label}…`, 'saving');
  let ok = false;
  try {
    const url = path || `/api/issues/${encodeURIComponent(id)}`;
    let data;
    try {
      data = await api(url, { method, body: { ifVersion: issueBase.version, ...changes } });
    } catch (error) {
      const version = error.status === 409 && !path ? await rebased(id, changes) : null;
      if (!version) throw error;
      data = await api(url, { method, body: { ifVersion: version, ...changes } });
    }
    if (data.version) Object.assign(issueBase, { updatedAt: data.updatedAt, version: data.version, descriptionHash: data.descriptionHash });
    const changed = data.result.changed || [];
    setSaveState(changed.length ? `Saved ${label}` : `No change to ${label}`, 'saved');
    ok = true;
  } catch (error) {
    setSaveState(`Not saved (${label}): ${error.message}`, 'error');
  }
  if (view === 'issue' && currentIssue === id && !editors) {
    if (fieldFocused) reloadOnLeave = true;
    else loadIssue(id);
  }
  return ok;
}

function renderIssue(data) {
  const issue = data.issue;
  pendingIssue = null;
  issueBase = { id: issue.id, updatedAt: issue.updatedAt, version: data.version, descriptionHash: data.descriptionHash, description: data.description,
    fields: Object.fromEntries(['status', 'priority', 'assignee', 'labels'].map((k) => [k, fieldValue(issue, k)])) };
  document.title = `${issue.id} ${issue.title} · docket`;
  if (data.workspace) $('#workspace').textContent = data.workspace;
  // A re-render (after a save, or a live update) keeps the field being typed in, and its text:
  // the sidebar's fields and the blocker being added alike.
  const active = document.activeElement;
  const typing = active && active.closest('#main') && active.name
    ? { name: active.name, value: active.value, start: active.selectionStart, end: active.selectionEnd } : null;

  const status = el('select', { name: 'status', 'aria-label': 'Status' }, STATUSES.map((s) => el('option', { value: s, selected: s === issue.status }, statusName(s))));
  const priority = el('select', { name: 'priority', 'aria-label': 'Priority' }, PRIORITIES.map((p) => el('option', { value: p, selected: p === issue.priority }, p)));
  for (const control of [status, priority]) {
    control.addEventListener('change', () => save(control.name, { [control.name]: control.value }));
  }
  const assignee = el('input', { name: 'assignee', value: issue.assignee || '', autocomplete: 'off', placeholder: 'Unassigned' });
  const labels = el('input', { name: 'labels', value: issue.labels.join(', '), autocomplete: 'off', placeholder: 'comma, separated' });
  assignee.addEventListener('change', () => save('assignee', { assignee: assignee.value.trim() }));
  labels.addEventListener('change', () => save('labels', { labels: labels.value.split(',').map((l) => l.trim()).filter(Boolean) }));
  for (const input of [assignee, labels]) {
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); input.blur(); }
      if (event.key === 'Escape') { input.value = input.defaultValue; input.blur(); }
    });
    input.addEventListener('focus', () => { fieldFocused = true; });
    input.addEventListener('blur', () => {
      fieldFocused = false;
      if ((pendingIssue || reloadOnLeave) && !editors && view === 'issue') {
        reloadOnLeave = false;
        loadIssue(currentIssue);
      }
    });
  }
  const form = el('form', { class: 'edit', id: 'edit-form' },
    el('div', { class: 'controls' }, el('label', {}, 'Status', status), el('label', {}, 'Priority', priority)),
    el('label', {}, 'Assignee', assignee),
    el('label', {}, 'Labels', labels),
    el('p', { class: 'save-state', id: 'save-state', role: 'status', 'aria-live': 'polite', dataset: { kind: saveState?.kind || 'idle' } },
      saveState?.text || 'Changes save as you make them.'));
  form.addEventListener('submit', (event) => event.preventDefault());
  const context = Object.entries(issue.context || {}).filter(([k]) => k !== 'parentTaskId');
  const time = (iso) => (iso ? el('time', { datetime: iso, title: iso }, relativeTime(iso)) : null);
  const aside = el('aside', { class: 'sidebar' },
    form,
    el('dl', { class: 'fields' },
      field('Type', issue.type),
      field('Project', issue.project),
      field('Created', time(issue.createdAt)),
      field('Updated', time(issue.updatedAt)),
      field('Closed', time(issue.closedAt)),
      context.map(([k, v]) => field(fieldName(k), typeof v === 'string' ? v : JSON.stringify(v), k)),
      field('File', el('code', {}, issue.path))));
  const related = [];
  if (data.parent) related.push(el('section', { class: 'related' }, el('h3', {}, 'Parent'), el('ul', {}, issueLink(data.parent))));
  if (data.children.length) related.push(el('section', { class: 'related' }, el('h3', {}, `Sub-tasks (${data.children.length})`), el('ul', {}, data.children.map(issueLink))));
  related.push(renderBlockers(data));
  if (data.mentions.length) related.push(el('section', { class: 'related' }, el('h3', {}, 'Mentions'), el('ul', {}, data.mentions.map(issueLink))));
  const body = el('div', { class: 'markdown', id: 'issue-body' });
  body.innerHTML = data.bodyHtml; // sanitized by the server (ammonia)
  if (!body.textContent.trim() && !body.querySelector('img, input')) body.replaceChildren(el('p', { class: 'muted' }, 'No description.'));
  enableTasks(body);
  const content = el('div', { class: 'content' }, body);
  if (data.notesHtml) {
    const notes = el('div', { class: 'markdown' });
    notes.innerHTML = data.notesHtml; // sanitized by the server
    content.append(el('section', { class: 'notes', id: 'completion-notes' }, el('h3', {}, 'Completion notes'), notes));
  }
  if (data.sessions.length) content.append(renderSessions(data.sessions));
  // One way in: Edit opens the title and the description together.
  const edit = el('button', { type: 'button', class: 'button small edit-issue', id: 'edit-issue', 'aria-label': 'Edit the title and description' }, 'Edit');
  const heading = el('h1', { id: 'issue-title' }, issue.title);
  edit.addEventListener('click', () => openEditor(heading, content, edit));
  const outline = outlineOf(body);
  const header = el('header', { class: 'issue-head' },
    el('div', { class: 'issue-meta' }, el('span', { class: 'id' }, issue.id),
      el('span', { class: `status-pill status-${issue.status}` }, statusName(issue.status)),
      el('span', { class: `priority priority-${issue.priority}` }, issue.priority),
      chips(issue.labels)),
    el('div', { class: 'title-row' }, heading, edit));
  const warnings = (data.warnings || []).map((w) => el('p', { class: 'warning issue-warning' }, w));
  $('#main').replaceChildren(el('nav', { class: 'crumbs' }, backLink()),
    el('article', { class: 'issue', dataset: { id: issue.id } }, header, ...warnings,
      el('div', { class: 'issue-layout' }, el('div', { class: 'main-col' }, outline, content, ...related), aside)));
  if (typing) {
    const again = $('#main').querySelector(`[name="${CSS.escape(typing.name)}"]`);
    if (again) {
      if (again.tagName === 'INPUT') {
        again.value = typing.value;
        again.focus();
        try { again.setSelectionRange(typing.start, typing.end); } catch { /* not a text field */ }
      } else again.focus();
    }
  }
}

// ---------------------------------------------------------------- title and description

function editorOpened() { editors += 1; }

function editorClosed() {
  editors = Math.max(0, editors - 1);
  if (editors === 0 && view === 'issue') loadIssue(currentIssue);
}

/** A long description's headings as links, above it (as issues_get's outline is for an
 * agent): shown from three headings on. Each heading gets an id to go to. */
function outlineOf(body) {
  const headings = [...body.querySelectorAll('h1, h2, h3, h4')];
  if (headings.length < 3) return null;
  const top = Math.min(...headings.map((h) => Number(h.tagName[1])));
  const used = new Set();
  const items = headings.map((h, i) => {
    let id = `h-${h.textContent.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || i}`;
    while (used.has(id)) id += `-${i}`;
    used.add(id);
    h.id = id;
    const link = el('a', { href: `#${id}` }, h.textContent.trim());
    link.addEventListener('click', (event) => { event.preventDefault(); h.scrollIntoView({ block: 'start' }); });
    return el('li', { class: `outline-${Number(h.tagName[1]) - top + 1}` }, link);
  });
  return el('nav', { class: 'outline', id: 'outline', 'aria-label': 'Outline' },
    el('h3', {}, 'Outline'), el('ol', {}, items));
}

/** The one editor: the title above the description as markdown beside its preview. The title
 * saves on Enter or when left; the description when its text is left, or on Done. */
function openEditor(heading, content, button) {
  if ($('#body-editor')) return;
  editorOpened();
  const before = heading.textContent;
  const title = el('input', { name: 'title', value: before, 'aria-label': 'Title', maxlength: '200', autocomplete: 'off', class: 'title-input' });
  let savedTitle = before;
  const saveTitle = async () => {
    const text = title.value.trim();
    if (!text || text === savedTitle) return;
    savedTitle = text;
    heading.textContent = text;
    await save('title', { title: text });
  };
  title.addEventListener('blur', saveTitle);
  const base = issueBase.description || '';
  const textarea = el('textarea', { name: 'description', rows: '16', 'aria-label': 'Description (markdown)', spellcheck: 'true' });
  textarea.value = base;
  const preview = el('div', { class: 'markdown preview', id: 'body-preview', 'aria-live': 'off' });
  const done = el('button', { type: 'button', class: 'button primary', id: 'body-done' }, 'Done');
  const editor = el('div', { class: 'body-editor', id: 'body-editor' },
    el('label', { class: 'pane title-pane' }, el('span', { class: 'pane-title' }, 'Title'), title),
    el('div', { class: 'editor-panes' },
      el('label', { class: 'pane' }, el('span', { class: 'pane-title' }, 'Markdown'), textarea),
      el('div', { class: 'pane' }, el('span', { class: 'pane-title' }, 'Preview'), preview)),
    el('p', { class: 'muted editor-note', id: 'editor-note' }, 'Saved when you leave the text (or press Ctrl+Enter). Esc discards what is not saved.'),
    el('div', { class: 'actions' }, el('p', { class: 'save-state', role: 'status', dataset: { kind: saveState?.kind || 'idle' } }, saveState?.text || ''), done));
  const shownBody = $('#issue-body', content);
  shownBody.hidden = true;
  button.hidden = true;
  shownBody.after(editor);
  let saved = base;
  let queue = Promise.resolve(true);
  let previewTimer;
  let previewTicket = 0;
  const renderPreview = async () => {
    const ticket = ++previewTicket;
    try {
      const data = await api('/api/preview', { method: 'POST', body: { markdown: textarea.value } });
      if (ticket === previewTicket) preview.innerHTML = data.html; // sanitized by the server
    } catch (error) {
      if (ticket === previewTicket) preview.replaceChildren(el('p', { class: 'form-error' }, error.message));
    }
  };
  renderPreview();
  textarea.addEventListener('input', () => { clearTimeout(previewTimer); previewTimer = setTimeout(renderPreview, 250); });
  // Saves run one after another: leaving the text and pressing Done save it once.
  const commit = () => {
    queue = queue.then(() => {
      const text = textarea.value;
      if (text === saved) return true;
      const body = { description: text, ifDescription: issueBase.descriptionHash };
      const path = `/api/issues/${encodeURIComponent(issueBase.id)}/description`;
      return save('description', body, { path, method: 'PUT' }).then((ok) => {
        if (ok) { saved = text; issueBase.description = text; }
        return ok;
      });
    });
    return queue;
  };
  textarea.addEventListener('blur', commit);
  let closed = false;
  const close = async (keep) => {
    if (closed) return;
    if (keep) await saveTitle();
    if (keep && !(await commit())) return; // refused: the text stays, with the reason above
    closed = true;
    if (!keep) heading.textContent = savedTitle;
    editor.remove();
    shownBody.hidden = false;
    button.hidden = false;
    editorClosed();
  };
  title.addEventListener('keydown', (event) => {
    // Enter saves the title and goes on to the description.
    if (event.key === 'Enter') { event.preventDefault(); textarea.focus(); }
    if (event.key === 'Escape') { event.preventDefault(); title.value = savedTitle; close(false); }
  });
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); textarea.blur(); }
    if (event.key === 'Escape') { event.preventDefault(); close(false); }
  });
  done.addEventListener('click', () => close(true));
  title.focus();
  title.select();
}

/** Task-list checkboxes of the description toggle; one at a time, each a saved change. */
function enableTasks(body) {
  const boxes = [...body.querySelectorAll('input.task[data-task]')];
  for (const box of boxes) {
    box.disabled = false;
    box.setAttribute('aria-label', `Task ${Number(box.dataset.task) + 1}: ${box.parentElement?.textContent.trim() || ''}`);
    box.addEventListener('change', async () => {
      for (const b of boxes) b.disabled = true;
      const path = `/api/issues/${encodeURIComponent(issueBase.id)}/task`;
      const body = { task: Number(box.dataset.task), checked: box.checked, ifDescription: issueBase.descriptionHash };
      const ok = await save(`task ${body.task + 1}`, body, { path, method: 'POST' });
      if (!ok) box.checked = !box.checked;
      for (const b of boxes) b.disabled = false;
    });
  }
}

// ---------------------------------------------------------------- blockers and sessions

// Blockers: each with a remove button, and a field to add one (issues_update blockedBy). The
// list is written whole, so it is written only if the issue is still as shown (ifVersion): a
// blocker an agent added meanwhile is never dropped; the page shows it, and the person retries.
function renderBlockers(data) {
  const ids = (data.blockedBy || []).map((b) => b.id);
  const saveList = (list) => save('blockers', { blockedBy: list });
  const rows = (data.blockedBy || []).map((b) => {
    const remove = el('button', { type: 'button', class: 'link remove-blocker', 'aria-label': `Remove blocker ${b.id}` }, 'Remove');
    remove.addEventListener('click', () => saveList(ids.filter((x) => x !== b.id)));
    const row = issueLink(b);
    row.append(' ', remove);
    return row;
  });
  const add = el('form', { class: 'add-blocker', id: 'add-blocker' },
    el('input', { name: 'blocker', placeholder: 'ISS-000042', autocomplete: 'off', 'aria-label': 'Add a blocker' }),
    el('button', { type: 'submit', class: 'button' }, 'Add blocker'));
  add.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = add.elements.blocker.value.trim();
    if (value) saveList([...ids, value]);
  });
  const open = (data.openBlockers || []).length;
  return el('section', { class: 'related blockers', id: 'blockers' },
    el('h3', {}, open ? `Blocked by (${open} open)` : 'Blocked by'),
    rows.length ? el('ul', {}, rows) : el('p', { class: 'muted' }, 'Nothing blocks it.'),
    add,
    (data.blocks || []).length ? el('div', {}, el('h3', {}, 'Blocks'), el('ul', {}, data.blocks.map(issueLink))) : null);
}

function renderSessions(sessions) {
  return el('section', { class: 'sessions' }, el('h3', {}, 'Sessions'),
    el('ol', {}, sessions.map((s) => el('li', { class: 'session' },
      el('div', {}, el('code', {}, s.id), ' ', el('span', { class: `status-pill session-${s.status}` }, s.status), ' · phase ', s.currentPhase),
      el('div', { class: 'muted' }, `started ${relativeTime(s.startedAt)}`, s.completedAt ? `, completed ${relativeTime(s.completedAt)}` : '',
        s.phasesCompleted?.length ? ` · done: ${s.phasesCompleted.join(', ')}` : ''),
      s.prUrl ? el('a', { href: s.prUrl, rel: 'noopener noreferrer', target: '_blank' }, s.prUrl) : null))));
}
