// docket's board: plain JavaScript, no build step. Untrusted text is always set with
// textContent; the only HTML inserted is the issue body and the statistics chart, both made
// and sanitized by the server (and the page's Content-Security-Policy forbids inline script).
// This file: helpers, routing, the filter bar, the board, the "new issue" dialog and live
// updates. issue.js draws an issue's page, views.js the list, the statistics and the problems.
'use strict';

const STATUSES = ['open', 'in_progress', 'closed', 'cancelled'];
const STATUS_NAMES = { open: 'Open', in_progress: 'In progress', closed: 'Closed', cancelled: 'Cancelled' };
const PRIORITIES = ['critical', 'high', 'medium', 'low'];
const TYPES = ['issue', 'specification', 'idea'];
const FILTERS = ['q', 'status', 'priority', 'type', 'label', 'assignee', 'project', 'cancelled'];
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

/** How long ago `iso` was, short: `5m`, `3h`, `12d`, `4mo`, `2y` ('' without a date). */
function age(iso) {
  const t = Date.parse(iso);
  if (!t) return '';
  const minutes = Math.max(0, (Date.now() - t) / 60000);
  const days = minutes / 1440;
  if (minutes < 60) return `${Math.floor(minutes)}m`;
  if (minutes < 1440) return `${Math.floor(minutes / 60)}h`;
  if (days < 60) return `${Math.floor(days)}d`;
  if (days < 730) return `${Math.floor(days / 30.44)}mo`;
  return `${Math.floor(days / 365.25)}y`;
}

function ageMark(iso) {
  const text = age(iso);
  return text ? el('time', { class: 'age', datetime: iso, title: `Created ${iso.slice(0, 10)} (${relativeTime(iso)})` }, text) : null;
}

// ---------------------------------------------------------------- routing

let view = null; // 'board' | 'list' | 'stats' | 'problems' | 'issue'
const VIEWS = { '/': 'board', '/list': 'list', '/stats': 'stats', '/problems': 'problems' };

function route() {
  const match = location.pathname.match(/^\/issues\/([^/]+)$/);
  const name = match ? 'issue' : VIEWS[location.pathname] || 'board';
  for (const link of document.querySelectorAll('#views a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (match) showIssue(decodeURIComponent(match[1]));
  else if (name === 'list') showList();
  else if (name === 'stats') showStats();
  else if (name === 'problems') showProblems();
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
  if (url.origin !== location.origin || !(url.pathname in VIEWS || url.pathname.startsWith('/issues/'))) return;
  event.preventDefault();
  // The view tabs keep the filters.
  const keep = link.closest('#views') && boardFilters.toString() ? `?${boardFilters}` : url.search;
  navigate(url.pathname + keep);
});
window.addEventListener('popstate', route);

// ---------------------------------------------------------------- filters

let boardFilters = new URLSearchParams();
let facets = { labels: [], assignees: [], projects: [] };

function filtersFromUrl() {
  const params = new URLSearchParams(location.search);
  const kept = new URLSearchParams();
  for (const key of FILTERS) if (params.get(key)) kept.set(key, params.get(key));
  return kept;
}

const chosen = (name) => (boardFilters.get(name) || '').split(',').map((v) => v.trim()).filter(Boolean);

/**
 * A filter taking several values: a button that opens a list of checkboxes. `values` are
 * strings or `{key, count}`; the ones in the address stay listed even if no issue has them.
 */
function multi(name, label, values, format = (v) => v) {
  const current = chosen(name);
  const options = values.map((v) => (typeof v === 'string' ? { key: v } : v));
  for (const c of current) if (!options.some((o) => o.key === c)) options.push({ key: c });
  const summary = current.length ? `${label}: ${current.map(format).join(', ')}` : label;
  const box = el('details', { class: `multi${current.length ? ' active' : ''}`, dataset: { name } },
    el('summary', { 'aria-label': `${label} filter` }, summary),
    el('div', { class: 'multi-options', role: 'group', 'aria-label': label },
      options.length ? options.map((o) => el('label', { class: 'check' },
        el('input', { type: 'checkbox', name, value: o.key, checked: current.includes(o.key) }),
        format(o.key), o.count !== undefined ? el('span', { class: 'muted' }, ` ${o.count}`) : null))
        : el('p', { class: 'muted' }, 'None in use')));
  return box;
}

function filterBar(withStatus = true) {
  const f = boardFilters;
  const form = el('form', { class: 'filters', role: 'search', id: 'filters' },
    el('input', { type: 'search', name: 'q', value: f.get('q') || '', placeholder: 'Search titles, bodies, labels…', 'aria-label': 'Search', autocomplete: 'off' }),
    withStatus ? multi('status', 'Status', STATUSES, statusName) : null,
    multi('priority', 'Priority', PRIORITIES),
    multi('type', 'Type', TYPES),
    multi('label', 'Label', facets.labels),
    multi('assignee', 'Assignee', facets.assignees),
    multi('project', 'Project', facets.projects),
    el('button', { type: 'button', class: 'button ghost', id: 'clear-filters', hidden: [...f.keys()].length === 0 }, 'Clear'));
  let typing;
  const changed = (event) => {
    clearTimeout(typing);
    typing = setTimeout(applyFilters, event.target.name === 'q' ? 200 : 0);
  };
  form.addEventListener('input', changed);
  form.addEventListener('submit', (event) => { event.preventDefault(); applyFilters(); });
  $('#clear-filters', form).addEventListener('click', () => {
    $('input[name=q]', form).value = '';
    for (const box of form.querySelectorAll('.multi input')) box.checked = false;
    applyFilters();
  });
  return form;
}

// One open filter list at a time; a click elsewhere closes it.
document.addEventListener('click', (event) => {
  for (const open of document.querySelectorAll('details.multi[open]')) {
    if (!open.contains(event.target)) open.open = false;
  }
});

/** The filters as the form has them now, into the address; then `reload` shows them. */
function applyFilters() {
  const form = $('#filters');
  const next = new URLSearchParams();
  const q = $('input[name=q]', form).value.trim();
  if (q) next.set('q', q);
  for (const box of form.querySelectorAll('details.multi')) {
    const values = [...box.querySelectorAll('input:checked')].map((i) => i.value);
    if (values.length) next.set(box.dataset.name, values.join(','));
  }
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (!FILTERS.includes(key) && !next.has(key)) next.set(key, value); // the list's sort
  }
  boardFilters = new URLSearchParams([...next].filter(([k]) => FILTERS.includes(k)));
  const query = next.toString();
  history.replaceState(null, '', query ? `${location.pathname}?${query}` : location.pathname);
  $('#clear-filters').hidden = boardFilters.toString() === '';
  refreshFilterSummaries();
  if (view === 'board') { shown = {}; loadBoard(); }
  else if (view === 'list') loadList();
  else if (view === 'stats') loadStats();
}

/** Each multi-value filter's button names what is chosen (without rebuilding an open list). */
function refreshFilterSummaries() {
  for (const box of document.querySelectorAll('#filters details.multi')) {
    const values = chosen(box.dataset.name);
    const label = box.querySelector('summary').getAttribute('aria-label').replace(/ filter$/, '');
    const format = box.dataset.name === 'status' ? statusName : (v) => v;
    box.querySelector('summary').textContent = values.length ? `${label}: ${values.map(format).join(', ')}` : label;
    box.classList.toggle('active', values.length > 0);
  }
}

function refreshFacetOptions() {
  const form = $('#filters');
  if (!form) return;
  for (const [name, label, values] of [['label', 'Label', facets.labels], ['assignee', 'Assignee', facets.assignees], ['project', 'Project', facets.projects]]) {
    const old = form.querySelector(`details.multi[data-name=${name}]`);
    if (!old || old.open || old.contains(document.activeElement)) continue;
    old.replaceWith(multi(name, label, values));
  }
}

/** The line about the workspace's problems (duplicate ids, broken files), or nothing. */
function renderProblemsLine(problems) {
  const box = $('#warnings');
  if (!box) return;
  if (!problems) { box.replaceChildren(); return; }
  box.replaceChildren(el('p', { class: 'warning problems-line', role: 'note' }, `⚠ ${problems.text} `,
    el('a', { href: '/problems', id: 'problems-link' }, 'Details'),
    el('span', { class: 'muted' }, ' · `docket doctor --fix` repairs what is safe')));
}

// ---------------------------------------------------------------- board

let shown = {}; // status -> cards on screen

function showBoard() {
  view = 'board';
  document.title = 'docket';
  boardFilters = filtersFromUrl();
  shown = {};
  $('#main').replaceChildren(filterBar(), el('div', { class: 'warnings', id: 'warnings' }), el('div', { id: 'board-files' }), el('div', { class: 'board', id: 'board', 'aria-busy': 'true' }));
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
    renderProblemsLine(data.problems);
    // Files without frontmatter (a README, notes) are no cards: named apart, by their file.
    $('#board-files')?.replaceChildren(...[plainFiles(data.files)].filter(Boolean));
    renderColumns(data.columns);
  } catch (error) {
    if (ticket === boardRequest) showError(error);
  }
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
    params.set('column', column.status);
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
  const item = el('li', { class: `card priority-${card.priority}${card.blocked ? ' blocked' : ''}`, draggable: 'true', dataset: { id: card.id, status: card.status, updated: card.updatedAt } },
    el('div', { class: 'card-top' },
      el('a', { class: 'id', href, tabindex: '-1' }, card.id),
      ageMark(card.createdAt),
      card.blocked ? el('span', { class: 'blocked-mark', title: 'Waits on an open blocker' }, 'Blocked') : null,
      card.duplicates ? el('span', { class: 'duplicate-mark', title: `This id is held by ${card.duplicates} files: run \`docket doctor --fix\`` }, 'duplicate id') : null,
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
    // The move is made to the issue as the board showed it: refused (and the board reloaded)
    // when an agent or an editor changed it since.
    await api(`/api/issues/${encodeURIComponent(id)}`, { method: 'PATCH', body: { status, ifUpdatedAt: card?.dataset.updated } });
    toast(`Saved ${id}: ${statusName(status)}`);
  } catch (error) {
    toast(error.message, 'error');
  }
  loadBoard();
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
      refresh();
    } catch (error) {
      $('#create-error').textContent = error.message;
    } finally {
      $('#create-submit').disabled = false;
    }
  });
}

// ---------------------------------------------------------------- errors and live updates

function backLink() {
  const query = boardFilters.toString();
  return el('a', { class: 'back', href: query ? `/?${query}` : '/' }, '← Board');
}

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
    if (view === 'board') loadBoard();
    else if (view === 'list') loadList();
    else if (view === 'stats') loadStats();
    else if (view === 'problems') loadProblems();
    else if (view === 'issue') loadIssue(currentIssue, { live: true });
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

// The other scripts (deferred, in order) are loaded by then.
document.addEventListener('DOMContentLoaded', () => {
  setupCreate();
  route();
  connectLive();
});
