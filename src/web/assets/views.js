// docket's board: the list view (a sortable table), the statistics page and the workspace's
// problems (what `docket doctor` reports). They share the board's filter bar and address.
'use strict';

// ---------------------------------------------------------------- list

const LIST_COLUMNS = [
  ['id', 'ID'], ['title', 'Title'], ['status', 'Status'], ['priority', 'Priority'], ['type', 'Type'],
  [null, 'Labels'], ['assignee', 'Assignee'], ['created', 'Age'], ['updated', 'Updated'],
];
const ROWS = 100;
let listRows = 0;

function showList() {
  view = 'list';
  document.title = 'List · docket';
  boardFilters = filtersFromUrl();
  listRows = 0;
  $('#main').replaceChildren(filterBar(), el('div', { class: 'warnings', id: 'warnings' }),
    el('div', { class: 'list-wrap' }, el('table', { class: 'list', id: 'list', 'aria-busy': 'true' })),
    el('div', { id: 'list-more' }));
  loadList();
}

function listSort() {
  const params = new URLSearchParams(location.search);
  return { sort: params.get('sort') || '', order: params.get('order') || '' };
}

let listRequest = 0;

async function loadList(append = false) {
  const ticket = ++listRequest;
  const params = new URLSearchParams(boardFilters);
  const { sort, order } = listSort();
  if (sort) params.set('sort', sort);
  if (order) params.set('order', order);
  if (append) params.set('offset', String(listRows));
  else params.set('limit', String(Math.max(ROWS, listRows)));
  try {
    const data = await api(`/api/list?${params}`);
    if (ticket !== listRequest || view !== 'list') return;
    if (data.workspace) $('#workspace').textContent = data.workspace;
    renderList(data, append);
  } catch (error) {
    if (ticket === listRequest) {
      if (error.status === 400) toast(error.message, 'error');
      else showError(error);
    }
  }
}

function sortHeader(key, label, data) {
  if (!key) return el('th', { scope: 'col' }, label);
  const active = data.sort === key;
  const sorted = active ? (data.order === 'asc' ? 'ascending' : 'descending') : 'none';
  const button = el('button', { type: 'button', class: 'sort', dataset: { sort: key } }, label,
    el('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (data.order === 'asc' ? ' ▲' : ' ▼') : ''));
  button.addEventListener('click', () => {
    // The same column again turns the order around; another starts at its natural order.
    const order = active ? (data.order === 'asc' ? 'desc' : 'asc') : (['created', 'updated', 'priority'].includes(key) ? 'desc' : 'asc');
    const params = new URLSearchParams(location.search);
    params.set('sort', key);
    params.set('order', order);
    history.replaceState(null, '', `/list?${params}`);
    listRows = 0;
    loadList();
  });
  return el('th', { scope: 'col', 'aria-sort': sorted, dataset: { key } }, button);
}

function renderList(data, append) {
  const table = $('#list');
  if (!table) return;
  const rows = data.rows.map((r) => {
    const href = `/issues/${encodeURIComponent(r.id)}`;
    return el('tr', { dataset: { id: r.id, status: r.status, priority: r.priority, created: r.createdAt } },
      el('td', { class: 'id' }, el('a', { href }, r.id)),
      el('td', { class: 'title' }, el('a', { href }, r.title || r.id), r.blocked ? el('span', { class: 'blocked-mark' }, 'Blocked') : null),
      el('td', {}, el('span', { class: `status-pill status-${r.status}` }, statusName(r.status))),
      el('td', {}, el('span', { class: `priority priority-${r.priority}` }, r.priority)),
      el('td', {}, r.type),
      el('td', {}, chips(r.labels)),
      el('td', { class: r.assignee ? '' : 'muted' }, r.assignee || '—'),
      el('td', {}, ageMark(r.createdAt)),
      el('td', {}, r.updatedAt ? el('time', { datetime: r.updatedAt, title: r.updatedAt }, relativeTime(r.updatedAt)) : ''));
  });
  if (append) {
    $('tbody', table).append(...rows);
    listRows += data.rows.length;
  } else {
    table.replaceChildren(
      el('caption', { class: 'sr-only' }, 'Issues; the column buttons sort them'),
      el('thead', {}, el('tr', {}, LIST_COLUMNS.map(([key, label]) => sortHeader(key, label, data)))),
      el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: LIST_COLUMNS.length, class: 'empty' }, 'Nothing matches'))));
    listRows = data.rows.length;
  }
  table.setAttribute('aria-busy', 'false');
  table.dataset.count = String(data.count);
  const more = $('#list-more');
  const left = data.count - listRows;
  more.replaceChildren(el('p', { class: 'muted list-count' }, `${listRows} of ${data.count}`), plainFiles(data.files));
  if (left > 0) {
    const b = el('button', { type: 'button', class: 'button more' }, `Show ${Math.min(ROWS, left)} more`);
    b.addEventListener('click', () => { b.disabled = true; loadList(true); });
    more.append(b);
  }
}

/** The files without frontmatter (a README, notes), named by their file: not issues, so
 * neither listed nor counted among them. */
function plainFiles(files) {
  if (!files || !files.length) return null;
  return el('p', { class: 'muted plain-files', id: 'plain-files' },
    `Not issues (files without frontmatter, not counted): `,
    files.map((f, i) => [i ? ', ' : '', el('code', {}, f.path)]).flat());
}

// ---------------------------------------------------------------- statistics

function showStats() {
  view = 'stats';
  document.title = 'Statistics · docket';
  boardFilters = filtersFromUrl();
  $('#main').replaceChildren(filterBar(), el('div', { class: 'stats', id: 'stats', 'aria-busy': 'true' }));
  loadStats();
}

let statsRequest = 0;

async function loadStats() {
  const ticket = ++statsRequest;
  try {
    const data = await api(`/api/stats?${boardFilters}`);
    if (ticket !== statsRequest || view !== 'stats') return;
    if (data.workspace) $('#workspace').textContent = data.workspace;
    renderStats(data);
  } catch (error) {
    if (ticket === statsRequest) showError(error);
  }
}

/** One count per row, with a bar as long as its share of the largest. */
function bars(id, title, rows, name = (k) => k, filter = null) {
  const most = Math.max(1, ...rows.map((r) => r.count));
  return el('section', { class: 'stat-block', id },
    el('h2', {}, title),
    el('table', { class: 'bars' }, el('tbody', {}, rows.map((r) => {
      const bar = el('span', { class: `bar bar-${r.key ?? 'none'}` });
      bar.style.width = `${(100 * r.count) / most}%`; // CSSOM: allowed by the CSP
      const label = r.key === null ? el('span', { class: 'muted' }, 'Unassigned')
        : filter ? el('a', { href: `/?${filter}=${encodeURIComponent(r.key)}` }, name(r.key)) : name(r.key);
      return el('tr', { dataset: { key: r.key ?? '' } },
        el('th', { scope: 'row' }, label),
        el('td', { class: 'bar-cell' }, bar),
        el('td', { class: 'num' }, String(r.count)));
    }))));
}

function renderStats(data) {
  const box = $('#stats');
  if (!box) return;
  const chart = el('div', { class: 'chart-box' });
  chart.innerHTML = data.chart; // SVG drawn by the server from numbers and dates only
  box.replaceChildren(
    el('div', { class: 'stat-totals' },
      el('div', { class: 'total', id: 'stat-total' }, el('strong', {}, String(data.total)), ' issues'),
      el('div', { class: 'total' }, el('strong', {}, String(data.created)), ' created'),
      el('div', { class: 'total' }, el('strong', {}, String(data.closed)), ' closed or cancelled'),
      data.undated ? el('div', { class: 'total muted' }, `${data.undated} without a creation date`) : null),
    plainFiles(data.files),
    el('section', { class: 'stat-block wide', id: 'stat-chart' },
      el('h2', {}, 'Created and closed over time'),
      el('p', { class: 'legend' }, el('span', { class: 'key key-created' }), 'created so far ', el('span', { class: 'key key-closed' }), 'closed or cancelled so far'),
      chart),
    bars('stat-status', 'By status', data.byStatus, statusName, 'status'),
    bars('stat-priority', 'By priority', data.byPriority, (k) => k, 'priority'),
    bars('stat-assignee', 'By assignee', data.byAssignee, (k) => k, 'assignee'),
    bars('stat-type', 'By type', data.byType, (k) => k, 'type'));
  box.setAttribute('aria-busy', 'false');
}

// ---------------------------------------------------------------- problems

function showProblems() {
  view = 'problems';
  lastRepair = null;
  document.title = 'Problems · docket';
  $('#main').replaceChildren(el('nav', { class: 'crumbs' }, backLink()), el('div', { class: 'problems', id: 'problems', 'aria-busy': 'true' }, el('p', { class: 'loading' }, 'Checking the workspace…')));
  loadProblems();
}

const KIND_NAMES = {
  duplicate_id: 'Duplicate ids', interrupted_move: 'Interrupted moves', misplaced: 'Misplaced files',
  name_mismatch: 'File names that disagree with their id', broken_frontmatter: 'Broken frontmatter',
  missing_parent: 'Missing parents', stale_temp_file: 'Abandoned temp files', malformed_id: 'Malformed ids',
  missing_blocker: 'Missing blockers', blocker_cycle: 'Blocker cycles',
};

/** What the last repair changed, shown above the list until the page is left. */
let lastRepair = null;

async function repairProblems(button) {
  button.disabled = true;
  button.textContent = 'Repairing…';
  try {
    const data = await api('/api/problems/fix', { method: 'POST', body: {} });
    const changes = data.result?.changes || [];
    const notes = data.result?.notes || [];
    lastRepair = el('section', { class: 'repaired', id: 'problems-repaired', role: 'status' },
      el('h2', {}, changes.length ? `${changes.length} change${changes.length === 1 ? '' : 's'} made` : 'Nothing to repair'),
      el('ul', {}, changes.map((c) => el('li', {}, c)), notes.map((n) => el('li', { class: 'muted' }, n))));
    await loadProblems();
  } catch (error) {
    button.disabled = false;
    button.textContent = 'Repair';
    toast(error.message, 'error');
  }
}

async function loadProblems() {
  try {
    const data = await api('/api/problems');
    if (view !== 'problems') return;
    if (data.workspace) $('#workspace').textContent = data.workspace;
    const groups = new Map();
    for (const p of data.problems) {
      if (!groups.has(p.kind)) groups.set(p.kind, []);
      groups.get(p.kind).push(p);
    }
    const box = $('#problems');
    let repair = null;
    if (data.fixable) {
      repair = el('button', { type: 'button', class: 'button primary', id: 'problems-fix' },
        `Repair ${data.fixable} problem${data.fixable === 1 ? '' : 's'}`);
      repair.addEventListener('click', () => repairProblems(repair));
    }
    box.replaceChildren(...[
      el('h1', {}, data.problems.length ? `${data.problems.length} problem${data.problems.length === 1 ? '' : 's'} in the workspace` : 'No problems in the workspace'),
      lastRepair,
      el('p', { class: 'muted' }, 'What `docket doctor` reports. ',
        data.fixable ? `Repair (docket doctor --fix, or workspace_doctor with fix: true) does what is safe for ${data.fixable} of them and says each change; the others say what to do.` : ''),
      repair,
      [...groups].map(([kind, list]) => el('section', { class: 'problem-group', dataset: { kind } },
        el('h2', {}, `${KIND_NAMES[kind] || kind} (${list.length})`),
        el('ul', {}, list.map((p) => el('li', { class: 'problem-item', dataset: { kind: p.kind, id: p.id || '' } },
          el('p', {}, p.message),
          el('p', { class: 'muted' }, p.fixable ? 'Repaired by --fix' : 'Needs a person')))))),
      (data.otherWarnings || []).length ? el('section', { class: 'problem-group' }, el('h2', {}, 'Other warnings'),
        el('ul', {}, data.otherWarnings.map((w) => el('li', { class: 'problem-item' }, w)))) : null,
    ].flat().filter(Boolean));
    box.setAttribute('aria-busy', 'false');
  } catch (error) {
    if (view === 'problems') showError(error);
  }
}
