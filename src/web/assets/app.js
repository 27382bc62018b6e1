// docket's board: plain JavaScript, no build step. Untrusted text is always set with
// textContent; the only HTML inserted is the issue body, sanitized by the server (and the
// page's Content-Security-Policy forbids inline script anyway).
'use strict';

const STATUSES = ['open', 'in_progress', 'closed', 'cancelled'];
const STATUS_NAMES = { open: 'Open', in_progress: 'In progress', closed: 'Closed', cancelled: 'Cancelled' };
const PRIORITIES = ['critical', 'high', 'medium', 'low'];
const TYPES = ['issue', 'specification', 'idea'];
const FILTERS = ['q', 'priority', 'type', 'label', 'assignee', 'project', 'cancelled'];
const PAGE = 50;

const $ = (selector, root = document) => root.querySelector(selector);

/** An element with attributes (on* never used) and children (strings become text nodes). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, options = {}) {
  const init = { credentials: 'same-origin', headers: { Accept: 'application/json' }, ...options };
  if (options.body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.error || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function toast(message, kind = 'info') {
  const box = el('div', { class: `toast toast-${kind}` }, message);
  $('#toasts').append(box);
  setTimeout(() => box.remove(), kind === 'error' ? 9000 : 4000);
}

const statusName = (s) => STATUS_NAMES[s] || s;

function relativeTime(iso) {
  const t = Date.parse(iso);
  if (!t) return '';
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 60) return 'just now';
  const units = [[60, 'minute'], [24, 'hour'], [30, 'day'], [12, 'month'], [Infinity, 'year']];
  let n = s / 60;
  for (const [size, name] of units) {
    if (n < size) return `${Math.floor(n)} ${name}${Math.floor(n) === 1 ? '' : 's'} ago`;
    n /= size;
  }
  return '';
}

// ---------------------------------------------------------------- routing

let view = null; // 'board' | 'issue'

function route() {
  const match = location.pathname.match(/^\/issues\/([^/]+)$/);
  if (match) showIssue(decodeURIComponent(match[1]));
  else showBoard();
}

function navigate(url) {
  history.pushState(null, '', url);
  route();
  window.scrollTo(0, 0);
}

document.addEventListener('click', (event) => {
  const link = event.target.closest('a[href]');
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || link.target) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !(url.pathname === '/' || url.pathname.startsWith('/issues/'))) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', route);

// ---------------------------------------------------------------- board

let boardFilters = new URLSearchParams();
let shown = {}; // status -> cards on screen
let facets = { labels: [], assignees: [], projects: [] };

function filtersFromUrl() {
  const params = new URLSearchParams(location.search);
  const kept = new URLSearchParams();
  for (const key of FILTERS) if (params.get(key)) kept.set(key, params.get(key));
  return kept;
}

function select(name, label, values, current, format = (v) => v) {
  const node = el('select', { name, 'aria-label': label },
    el('option', { value: '' }, label),
    values.map((v) => el('option', { value: v.key ?? v, selected: (v.key ?? v) === current },
      v.count !== undefined ? `${format(v.key)} (${v.count})` : format(v))));
  if (current && !values.some((v) => (v.key ?? v) === current)) node.append(el('option', { value: current, selected: true }, current));
  return node;
}

function filterBar() {
  const f = boardFilters;
  const form = el('form', { class: 'filters', role: 'search', id: 'filters' },
    el('input', { type: 'search', name: 'q', value: f.get('q') || '', placeholder: 'Search titles, bodies, labels…', 'aria-label': 'Search', autocomplete: 'off' }),
    select('priority', 'Any priority', PRIORITIES, f.get('priority')),
    select('type', 'Any type', TYPES, f.get('type')),
    select('label', 'Any label', facets.labels, f.get('label')),
    select('assignee', 'Anyone', facets.assignees, f.get('assignee')),
    select('project', 'Any project', facets.projects, f.get('project')),
    el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'cancelled', checked: f.get('cancelled') === '1' }), 'Cancelled'),
    el('button', { type: 'button', class: 'button ghost', id: 'clear-filters', hidden: [...f.keys()].length === 0 }, 'Clear'));
  let typing;
  const changed = (event) => {
    clearTimeout(typing);
    typing = setTimeout(applyFilters, event.target.name === 'q' ? 200 : 0);
  };
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  form.addEventListener('submit', (event) => { event.preventDefault(); applyFilters(); });
  $('#clear-filters', form).addEventListener('click', () => {
    form.reset();
    for (const input of form.elements) if (input.name) input.value = input.type === 'checkbox' ? input.value : '';
    form.elements.cancelled.checked = false;
    applyFilters();
  });
  return form;
}

function applyFilters() {
  const form = $('#filters');
  const next = new URLSearchParams();
  for (const key of FILTERS) {
    const input = form.elements[key];
    const value = input.type === 'checkbox' ? (input.checked ? '1' : '') : input.value.trim();
    if (value) next.set(key, value);
  }
  boardFilters = next;
  shown = {};
  const query = next.toString();
  history.replaceState(null, '', query ? `/?${query}` : '/');
  $('#clear-filters').hidden = query === '';
  loadBoard();
}

function refreshFacetOptions() {
  const form = $('#filters');
  if (!form) return;
  for (const [name, label, values] of [['label', 'Any label', facets.labels], ['assignee', 'Anyone', facets.assignees], ['project', 'Any project', facets.projects]]) {
    const old = form.elements[name];
    if (document.activeElement === old) continue;
    old.replaceWith(select(name, label, values, boardFilters.get(name)));
  }
}

function showBoard() {
  view = 'board';
  document.title = 'docket';
  boardFilters = filtersFromUrl();
  shown = {};
  const main = $('#main');
  main.replaceChildren(filterBar(), el('div', { class: 'warnings', id: 'warnings' }), el('div', { class: 'board', id: 'board', 'aria-busy': 'true' }));
  loadBoard();
}

let boardRequest = 0;

async function loadBoard() {
  const ticket = ++boardRequest;
  const params = new URLSearchParams(boardFilters);
  const most = Math.max(PAGE, ...Object.values(shown));
  if (most > PAGE) params.set('limit', String(most));
  try {
    const data = await api(`/api/board?${params}`);
    if (ticket !== boardRequest || view !== 'board') return;
    facets = data.facets;
    if (data.workspace) $('#workspace').textContent = data.workspace;
    refreshFacetOptions();
    renderWarnings(data.warnings);
    renderColumns(data.columns);
  } catch (error) {
    if (ticket === boardRequest) showError(error);
  }
}

function renderWarnings(warnings) {
  const box = $('#warnings');
  if (!box) return;
  box.replaceChildren(...(warnings || []).map((w) => el('p', { class: 'warning' }, w)));
}

function renderColumns(columns) {
  const board = $('#board');
  if (!board) return;
  // A live update must not take the keyboard focus away from a card.
  const active = document.activeElement;
  const card = active && board.contains(active) ? active.closest('.card') : null;
  const focus = card ? { id: card.dataset.id, move: active.matches('select.move') } : null;
  board.dataset.columns = String(columns.length);
  board.replaceChildren(...columns.map(renderColumn));
  board.setAttribute('aria-busy', 'false');
  if (focus) {
    const again = board.querySelector(`.card[data-id="${CSS.escape(focus.id)}"]`);
    again?.querySelector(focus.move ? 'select.move' : 'a.title')?.focus();
  }
}

function renderColumn(column) {
  const list = el('ol', { class: 'cards' }, column.cards.map(renderCard));
  shown[column.status] = column.cards.length;
  const section = el('section', { class: `column column-${column.status}`, dataset: { status: column.status }, 'aria-labelledby': `col-${column.status}` },
    el('h2', { id: `col-${column.status}` }, el('span', { class: 'dot' }), statusName(column.status),
      el('span', { class: 'count', dataset: { count: column.count } }, String(column.count))),
    list);
  if (column.count === 0) list.append(el('li', { class: 'empty' }, boardFilters.toString() ? 'Nothing matches' : 'Nothing here'));
  if (column.cards.length < column.count) section.append(moreButton(column));
  section.addEventListener('dragover', (event) => {
    if (!event.dataTransfer.types.includes('text/plain')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    section.classList.add('drop-target');
  });
  section.addEventListener('dragleave', (event) => {
    if (!section.contains(event.relatedTarget)) section.classList.remove('drop-target');
  });
  section.addEventListener('drop', (event) => {
    event.preventDefault();
    section.classList.remove('drop-target');
    const id = event.dataTransfer.getData('text/plain');
    if (id) moveCard(id, column.status);
  });
  return section;
}

function moreButton(column) {
  const left = column.count - column.cards.length;
  const button = el('button', { type: 'button', class: 'button more' }, `Show ${Math.min(PAGE, left)} more of ${left}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    const params = new URLSearchParams(boardFilters);
    params.set('status', column.status);
    params.set('offset', String(shown[column.status] || 0));
    try {
      const page = await api(`/api/column?${params}`);
      const section = button.closest('.column');
      $('.cards', section).append(...page.cards.map(renderCard));
      shown[column.status] = (shown[column.status] || 0) + page.cards.length;
      const rest = page.count - shown[column.status];
      if (rest > 0) {
        button.textContent = `Show ${Math.min(PAGE, rest)} more of ${rest}`;
        button.disabled = false;
      } else button.remove();
    } catch (error) {
      toast(error.message, 'error');
      button.disabled = false;
    }
  });
  return button;
}

function chips(labels) {
  return labels.length ? el('ul', { class: 'labels' }, labels.map((l) => el('li', { class: 'label' }, l))) : null;
}

function renderCard(card) {
  const href = `/issues/${encodeURIComponent(card.id)}`;
  const move = el('select', { class: 'move', 'aria-label': `Status of ${card.id}`, dataset: { move: card.id } },
    STATUSES.map((s) => el('option', { value: s, selected: s === card.status }, statusName(s))));
  move.addEventListener('change', () => moveCard(card.id, move.value));
  const item = el('li', { class: `card priority-${card.priority}${card.blocked ? ' blocked' : ''}`, draggable: 'true', dataset: { id: card.id, status: card.status } },
    el('div', { class: 'card-top' },
      el('a', { class: 'id', href, tabindex: '-1' }, card.id),
      card.blocked ? el('span', { class: 'blocked-mark', title: 'Waits on an open blocker' }, 'Blocked') : null,
      el('span', { class: `priority priority-${card.priority}`, title: `Priority: ${card.priority}` }, card.priority)),
    el('a', { class: 'title', href }, card.title || card.id),
    chips(card.labels),
    el('div', { class: 'card-bottom' },
      card.assignee ? el('span', { class: 'assignee', title: `Assigned to ${card.assignee}` }, el('span', { class: 'avatar', 'aria-hidden': 'true' }, card.assignee.slice(0, 1).toUpperCase()), card.assignee) : el('span', { class: 'assignee none' }, 'Unassigned'),
      move));
  item.addEventListener('dragstart', (event) => {
    event.dataTransfer.setData('text/plain', card.id);
    event.dataTransfer.effectAllowed = 'move';
    item.classList.add('dragging');
  });
  item.addEventListener('dragend', () => item.classList.remove('dragging'));
  return item;
}

async function moveCard(id, status) {
  const card = document.querySelector(`.card[data-id="${CSS.escape(id)}"]`);
  if (card && card.dataset.status === status) return;
  const target = document.querySelector(`.column[data-status="${status}"] .cards`);
  if (card && target) {
    // Shown at once; the server's answer (and the live update) settle it.
    $('.empty', target)?.remove();
    target.prepend(card);
    card.dataset.status = status;
    card.classList.add('moving');
  }
  try {
    await api(`/api/issues/${encodeURIComponent(id)}`, { method: 'PATCH', body: { status } });
    toast(`${id} → ${statusName(status)}`);
  } catch (error) {
    toast(error.message, 'error');
  }
  loadBoard();
}

// ---------------------------------------------------------------- issue page

let currentIssue = null;

function showIssue(id) {
  view = 'issue';
  currentIssue = id;
  $('#main').replaceChildren(el('p', { class: 'loading' }, 'Loading…'));
  loadIssue(id);
}

function backLink() {
  const query = boardFilters.toString();
  return el('a', { class: 'back', href: query ? `/?${query}` : '/' }, '← Board');
}

async function loadIssue(id) {
  try {
    const data = await api(`/api/issues/${encodeURIComponent(id)}`);
    if (view !== 'issue' || currentIssue !== id) return;
    renderIssue(data);
  } catch (error) {
    if (view === 'issue' && currentIssue === id) showError(error, error.status === 404 ? `No issue ${id}` : null);
  }
}

function field(label, value) {
  return value === undefined || value === null || value === '' ? null : el('div', { class: 'field' }, el('dt', {}, label), el('dd', {}, value));
}

function issueLink(item) {
  return el('li', {}, el('a', { href: `/issues/${encodeURIComponent(item.id)}` }, el('span', { class: 'id' }, item.id), ' ', item.title || ''),
    item.status ? el('span', { class: `status-pill status-${item.status}` }, statusName(item.status)) : null);
}

function renderIssue(data) {
  const issue = data.issue;
  document.title = `${issue.id} ${issue.title} · docket`;
  if (data.workspace) $('#workspace').textContent = data.workspace;
  const status = el('select', { name: 'status', 'aria-label': 'Status' }, STATUSES.map((s) => el('option', { value: s, selected: s === issue.status }, statusName(s))));
  const priority = el('select', { name: 'priority', 'aria-label': 'Priority' }, PRIORITIES.map((p) => el('option', { value: p, selected: p === issue.priority }, p)));
  for (const control of [status, priority]) {
    control.addEventListener('change', () => saveIssue(issue.id, { [control.name]: control.value }));
  }
  const form = el('form', { class: 'edit', id: 'edit-form' },
    el('label', {}, 'Assignee', el('input', { name: 'assignee', value: issue.assignee || '', autocomplete: 'off' })),
    el('label', {}, 'Labels', el('input', { name: 'labels', value: issue.labels.join(', '), autocomplete: 'off', placeholder: 'comma, separated' })),
    el('button', { type: 'submit', class: 'button' }, 'Save'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const labels = form.elements.labels.value.split(',').map((l) => l.trim()).filter(Boolean);
    saveIssue(issue.id, { assignee: form.elements.assignee.value.trim(), labels });
  });
  const context = Object.entries(issue.context || {}).filter(([k]) => k !== 'parentTaskId');
  const aside = el('aside', { class: 'sidebar' },
    el('div', { class: 'controls' }, el('label', {}, 'Status', status), el('label', {}, 'Priority', priority)),
    form,
    el('dl', { class: 'fields' },
      field('Type', issue.type),
      field('Project', issue.project),
      field('Created', issue.createdAt ? el('time', { datetime: issue.createdAt, title: issue.createdAt }, relativeTime(issue.createdAt)) : null),
      field('Updated', issue.updatedAt ? el('time', { datetime: issue.updatedAt, title: issue.updatedAt }, relativeTime(issue.updatedAt)) : null),
      field('Closed', issue.closedAt ? el('time', { datetime: issue.closedAt, title: issue.closedAt }, relativeTime(issue.closedAt)) : null),
      context.map(([k, v]) => field(k, typeof v === 'string' ? v : JSON.stringify(v))),
      field('File', el('code', {}, issue.path))));
  const related = [];
  if (data.parent) related.push(el('section', { class: 'related' }, el('h3', {}, 'Parent'), el('ul', {}, issueLink(data.parent))));
  if (data.children.length) related.push(el('section', { class: 'related' }, el('h3', {}, `Sub-tasks (${data.children.length})`), el('ul', {}, data.children.map(issueLink))));
  related.push(renderBlockers(issue.id, data));
  if (data.mentions.length) related.push(el('section', { class: 'related' }, el('h3', {}, 'Mentions'), el('ul', {}, data.mentions.map(issueLink))));
  const body = el('div', { class: 'markdown', id: 'issue-body' });
  body.innerHTML = data.bodyHtml; // sanitized by the server (ammonia)
  if (!body.textContent.trim()) body.replaceChildren(el('p', { class: 'muted' }, 'No description.'));
  const content = el('div', { class: 'content' }, body);
  if (data.notesHtml) {
    const notes = el('div', { class: 'markdown' });
    notes.innerHTML = data.notesHtml; // sanitized by the server
    content.append(el('section', { class: 'notes', id: 'completion-notes' }, el('h3', {}, 'Completion notes'), notes));
  }
  if (data.sessions.length) content.append(renderSessions(data.sessions));
  const header = el('header', { class: 'issue-head' },
    el('div', { class: 'issue-meta' }, el('span', { class: 'id' }, issue.id),
      el('span', { class: `status-pill status-${issue.status}` }, statusName(issue.status)),
      el('span', { class: `priority priority-${issue.priority}` }, issue.priority),
      chips(issue.labels)),
    el('h1', {}, issue.title));
  const warnings = (data.warnings || []).map((w) => el('p', { class: 'warning' }, w));
  $('#main').replaceChildren(el('nav', { class: 'crumbs' }, backLink()),
    el('article', { class: 'issue', dataset: { id: issue.id } }, header, ...warnings,
      el('div', { class: 'issue-layout' }, el('div', { class: 'main-col' }, content, ...related), aside)));
}

// Blockers: each with a remove button, and a field to add one (issues_update blockedBy).
function renderBlockers(id, data) {
  const ids = (data.blockedBy || []).map((b) => b.id);
  const save = (list) => saveIssue(id, { blockedBy: list });
  const rows = (data.blockedBy || []).map((b) => {
    const remove = el('button', { type: 'button', class: 'link remove-blocker', 'aria-label': `Remove blocker ${b.id}` }, 'Remove');
    remove.addEventListener('click', () => save(ids.filter((x) => x !== b.id)));
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
    if (value) save([...ids, value]);
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

async function saveIssue(id, changes) {
  try {
    const data = await api(`/api/issues/${encodeURIComponent(id)}`, { method: 'PATCH', body: changes });
    const changed = data.result.changed || [];
    toast(changed.length ? `Saved ${id}: ${changed.join(', ')}` : `No change to ${id}`);
  } catch (error) {
    toast(error.message, 'error');
  }
  if (view === 'issue') loadIssue(id);
}

// ---------------------------------------------------------------- create

function setupCreate() {
  const dialog = $('#create');
  const form = $('#create-form');
  $('#new-issue').addEventListener('click', () => {
    $('#create-error').textContent = '';
    dialog.showModal();
    form.elements.title.focus();
  });
  $('#create-cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const f = form.elements;
    const body = {
      title: f.title.value.trim(),
      type: f.type.value,
      priority: f.priority.value,
      status: f.status.value,
      description: f.description.value,
      labels: f.labels.value.split(',').map((l) => l.trim()).filter(Boolean),
    };
    if (f.assignee.value.trim()) body.assignee = f.assignee.value.trim();
    $('#create-submit').disabled = true;
    try {
      const data = await api('/api/issues', { method: 'POST', body });
      dialog.close();
      form.reset();
      toast(`Created ${data.result.issue.id}`);
      if (view === 'board') loadBoard();
    } catch (error) {
      $('#create-error').textContent = error.message;
    } finally {
      $('#create-submit').disabled = false;
    }
  });
}

// ---------------------------------------------------------------- errors and live updates

function showError(error, title) {
  const main = $('#main');
  const signIn = error.status === 401;
  main.replaceChildren(el('div', { class: 'problem' },
    el('h1', {}, title || (signIn ? 'This board needs its token' : 'Something went wrong')),
    el('p', {}, error.message),
    signIn ? null : el('p', {}, backLink())));
}

let refreshTimer;

function refresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    const editing = document.activeElement && document.activeElement.closest('#edit-form, #filters input[type=search]');
    if (view === 'board') loadBoard();
    else if (view === 'issue' && !editing) loadIssue(currentIssue);
  }, 50);
}

let events = null;

function connectLive() {
  const indicator = $('#live');
  if (events) events.close();
  events = new EventSource('/api/events');
  const state = (on, text) => {
    indicator.classList.toggle('on', on);
    $('.live-text', indicator).textContent = text;
    indicator.title = on ? 'Changes to the files show up here as they happen' : 'Reconnecting…';
  };
  events.addEventListener('hello', () => {
    // Connected, or reconnected after missing changes: show what is there now.
    refresh();
    state(true, 'live');
  });
  events.addEventListener('change', refresh);
  events.addEventListener('error', () => state(false, 'offline'));
}

// A page kept in the back/forward cache must not hold its event stream open: browsers allow
// only a few connections per server, and a held one would stall the next page's requests.
window.addEventListener('pagehide', () => { if (events) events.close(); events = null; });
window.addEventListener('pageshow', (event) => { if (event.persisted) connectLive(); });

setupCreate();
route();
connectLive();
