#!/usr/bin/env node
// Drives `docket serve` over stdio with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json / package-lock.json).
//
// usage: node ts_client.mjs [DOCKET_BINARY [serve args...]]   (default: target/debug/docket serve --demo)
//
// What the SDK itself enforces, and so what this run proves: listTools() zod-checks the whole
// tools/list result (one bad tool rejects every tool) and compiles every outputSchema with Ajv (one
// uncompilable schema makes listTools() throw); callTool() validates structuredContent against the
// tool's outputSchema and rejects a missing structuredContent. The SDK forgets the validators of
// earlier tools/list pages, so every result is also checked here with the SDK's own Ajv validator.
// On top of that this script pages
// tools/list, pages issues_list with a small limit until the cursor runs out (the count must match
// issues_stats), calls EVERY served tool with valid input from SAMPLES, and reads resources.
// A served tool without sample arguments is a failure, so a new tool cannot go untested.
// Prints one line per check, then `ts sdk client: N passed, N failed`; exits 1 on any failure.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const LABEL = 'ts sdk client';
const MISSING_ID = 'ISS-999999';

class Failure extends Error {}
const expect = (cond, message) => {
  if (!cond) throw new Failure(message);
};

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    passed++;
    console.log(`ok   ${name}${typeof detail === 'string' && detail ? ` (${detail})` : ''}`);
    return detail ?? true;
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e instanceof Failure ? e.message : `${e?.name}: ${e?.message}`}`);
    return undefined;
  }
}
const fail = (name, message) => {
  failed++;
  console.log(`FAIL ${name}: ${message}`);
};

// Sample arguments for every tool, in the order they run. A function is evaluated when the step
// runs, with the ids created by earlier steps in `s`. `expectError` marks a deliberate failure (it
// feeds the error memory for errors_resolve); `post` checks the structured result.
function samples(s) {
  // A page is records (format full, fields) or one line per issue, each starting with its ID.
  const ids = (sc) => (sc.issues ? sc.issues.map((i) => i.id) : sc.rows.map((r) => r.split(' ')[0]));
  return [
    ['issues_create', {
      title: `TypeScript client check ${process.pid}`,
      description: 'Created by .ci/clients/ts_client.mjs.\n\n## Steps\n\nCall every tool once.',
      type: 'issue', priority: 'high', labels: ['ci', 'client'], project: 'ci', assignee: 'typescript',
      wranglerContext: { agentId: 'ts-ci', estimatedEffort: '1 hour' },
    }, { post: (sc) => { s.id = sc.issue.id; } }],
    ['issues_list', { format: 'minimal', limit: 5 }, {}],
    ['issues_list', { format: 'full', limit: 2, status: ['open', 'in_progress'] }, {}],
    ['issues_list', () => ({ project: 'ci', response_format: 'json' }),
      { post: (sc) => expect(ids(sc).includes(s.id), 'created issue not listed') }],
    ['issues_search', { query: 'TypeScript client check' },
      { post: (sc) => expect(ids(sc).includes(s.id), 'created issue not found') }],
    ['issues_search', () => ({ query: s.word, fields: ['title', 'description'], includeDescription: true, limit: 3 }),
      { post: (sc) => expect(sc.totalCount > 0, `no match for '${s.word}', a word of a listed title`) }],
    ['issues_get', () => ({ id: s.id }), { post: (sc) => expect(sc.issue.id === s.id, 'wrong issue') }],
    ['issues_get', () => ({ id: s.id, fields: ['status', 'labels'] }), {}],
    ['issues_get_batch', () => ({ ids: [s.id, s.firstId, MISSING_ID] }),
      { post: (sc) => expect(sc.notFound.length === 1 && sc.notFound[0] === MISSING_ID && sc.issues.length === 2,
        `notFound ${JSON.stringify(sc.notFound)}, ${sc.issues.length} found`) }],
    ['issues_update', () => ({ id: s.id, priority: 'critical', labels: ['ci', 'client', 'updated'] }),
      { post: (sc) => expect(sc.changed.includes('priority'), `changed = ${sc.changed}`) }],
    ['issues_update_batch', () => ({ updates: [{ id: s.id, status: 'in_progress' }, { id: MISSING_ID, status: 'open' }] }),
      { post: (sc) => expect(sc.succeeded === 1 && sc.failed === 1, `succeeded ${sc.succeeded}, failed ${sc.failed}`) }],
    ['issues_labels', { operation: 'list' }, {}],
    ['issues_labels', () => ({ operation: 'add', issueId: s.id, labels: ['extra'] }),
      { post: (sc) => expect(sc.issueLabels.includes('extra'), 'label not added') }],
    ['issues_labels', () => ({ operation: 'remove', issueId: s.id, labels: ['extra'] }), {}],
    ['issues_metadata', () => ({ operation: 'set', issueId: s.id, key: 'reviewer', value: { name: 'ci', round: 1 } }), {}],
    ['issues_metadata', () => ({ operation: 'get', issueId: s.id }),
      { post: (sc) => expect(sc.wranglerContext.reviewer?.round === 1, `wranglerContext = ${JSON.stringify(sc.wranglerContext)}`) }],
    ['issues_metadata', () => ({ operation: 'remove', issueId: s.id, key: 'reviewer' }), {}],
    ['issues_projects', { operation: 'list' }, {}],
    ['issues_projects', () => ({ operation: 'add', issueId: s.id, project: 'ci-2' }), {}],
    ['issues_projects', () => ({ operation: 'remove', issueId: s.id }), {}],
    ['issues_stats', { groupBy: 'priority' }, {}],
    ['issues_stats', { groupBy: 'project', status: ['open', 'in_progress'], response_format: 'json' }, {}],
    ['issues_all_complete', () => ({ issueIds: [s.id] }),
      { post: (sc) => expect(sc.allComplete === false, 'an in-progress issue counted as complete') }],
    ['issues_mark_complete', () => ({ id: s.id, note: 'Checked by the TypeScript client.' }),
      { post: (sc) => expect(sc.issue.status === 'closed', `status ${sc.issue.status}`) }],
    ['issues_all_complete', () => ({ issueIds: [s.id] }),
      { post: (sc) => expect(sc.allComplete === true, 'a closed issue counted as incomplete') }],
    // worktree false: the fixture copy lives in target/, inside docket's own repository, where a
    // worktree and branch would land in docket's repository.
    ['session_start', () => ({ specFile: s.specFile, workflow: 'ci', skipStepNames: ['lint'], worktree: false }),
      { post: (sc) => { s.session = sc.session.sessionId; } }],
    ['session_phase', () => ({ sessionId: s.session, phase: 'plan', status: 'started', metadata: { by: 'ci' } }), {}],
    ['session_checkpoint', () => ({
      sessionId: s.session, tasksCompleted: [s.id], tasksPending: [], lastAction: 'called every tool',
      resumeInstructions: 'run the client again', variables: { client: 'typescript' },
      stepResults: [{ stepName: 'build', status: 'passed' }],
    }), {}],
    ['session_get', {}, { post: (sc) => expect(sc.session.sessionId === s.session, 'wrong session') }],
    ['session_get', () => ({ sessionId: s.session }), {}],
    ['session_status', () => ({ sessionId: s.session }), {}],
    ['session_complete', () => ({
      sessionId: s.session, status: 'completed', prUrl: 'https://example.invalid/pr/1', prNumber: 1,
      summary: 'All tools answered.',
      stepExecutionSummary: { totalSteps: 2, executed: 1, skipped: 1, skippedSteps: ['lint'] },
    }), { post: (sc) => expect(sc.session.status === 'completed', 'session not completed') }],
    // Without sessionId only workflow-engine runs (wf-*) count, and this workspace has none.
    ['session_status', {}, { expectError: 'NOT_FOUND' }],
    ['init_workspace', {}, { post: (sc) => expect(['compliant', 'changes_needed'].includes(sc.status), `status ${sc.status}`) }],
    ['init_workspace', { fix: true }, { post: (sc) => expect(['compliant', 'initialized'].includes(sc.status), `status ${sc.status}`) }],
    ['workspace_doctor', {}, { post: (sc) => expect(sc.total === sc.problems.length, `doctor ${JSON.stringify(sc).slice(0, 200)}`) }],
    // A deliberate failure: it is recorded in the error memory, and errors_resolve needs a pattern.
    ['issues_delete', () => ({ id: s.id }), { expectError: 'CONFIRMATION_REQUIRED' }],
    ['errors_resolve', () => ({ patternId: s.pattern, resolution: 'Pass confirm: true to delete.' }),
      { before: 'pattern',
        post: (sc) => expect(sc.patternId === s.pattern && sc.operation === 'issues_delete', `resolved ${JSON.stringify(sc)}`) }],
    ['issues_delete', () => ({ id: s.id, confirm: true }), {}],
    ['issues_get', () => ({ id: s.id }), { expectError: 'NOT_FOUND' }],
  ];
}

async function listAll(fetch, itemsOf, limit = 100) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const res = await fetch(cursor);
    pages++;
    items.push(...itemsOf(res));
    cursor = res.nextCursor;
    expect(pages < limit || !cursor, `more than ${limit} pages`);
  } while (cursor);
  return { items, pages };
}

const textOf = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function main(command, args) {
  // StdioClientTransport passes only a small default environment to the child; add docket's own.
  const env = { ...getDefaultEnvironment() };
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(DOCKET_|WRANGLER_|RUST_)/.test(k)) env[k] = v;
  }
  const client = new Client({ name: 'docket-ci-ts', version: '0.0.1' });
  const state = {};
  const tools = new Map();
  const validators = new Map();
  const ajv = new AjvJsonSchemaValidator();

  const connected = await check('initialize', async () => {
    await client.connect(new StdioClientTransport({ command, args, env, stderr: 'inherit' }));
    const info = client.getServerVersion();
    expect(info?.name === 'docket', `serverInfo.name = ${info?.name}`);
    expect(client.getServerCapabilities()?.tools, 'no tools capability');
    return `${info.name} ${info.version}`;
  });
  if (!connected) return;

  try {
    await check('tools/list (zod shape check and Ajv compile of every outputSchema)', async () => {
      const { items, pages } = await listAll((cursor) => client.listTools(cursor ? { cursor } : undefined), (r) => r.tools);
      for (const t of items) tools.set(t.name, t);
      expect(tools.size === items.length, 'duplicate tool names');
      for (const t of items) {
        expect(t.outputSchema, `${t.name} has no outputSchema`);
        validators.set(t.name, ajv.getValidator(t.outputSchema));
      }
      return `${items.length} tools in ${pages} page(s)`;
    });

    const call = async (name, args, expectError) => {
      const result = await client.callTool({ name, arguments: args }); // the SDK checks outputSchema
      const text = textOf(result);
      const meta = result._meta ?? {};
      if (expectError) {
        expect(result.isError, `expected ${expectError}, got success: ${text.slice(0, 200)}`);
        const code = meta.error?.code ?? text.split(':')[0];
        expect(code === expectError, `expected ${expectError}, got ${code}: ${text.slice(0, 200)}`);
        return undefined;
      }
      expect(!result.isError, `isError: ${text.slice(0, 300)}`);
      expect(result.structuredContent && typeof result.structuredContent === 'object', 'no structuredContent');
      expect(text.trim(), 'no text block');
      const verdict = validators.get(name)?.(result.structuredContent);
      expect(verdict?.valid, `structuredContent does not match outputSchema: ${verdict?.errorMessage}`);
      for (const key of ['tokens', 'duration_ms']) expect(key in meta, `_meta has no ${key}`);
      state.meta = meta;
      return result.structuredContent;
    };

    await check('issues_list paging (limit 7, follow nextCursor)', async () => {
      const seen = [];
      const titles = [];
      const duplicates = new Set();
      let cursor;
      let pages = 0;
      let total;
      do {
        const sc = await call('issues_list', { limit: 7, fields: ['title'], ...(cursor ? { cursor } : {}) });
        pages++;
        seen.push(...sc.issues.map((i) => i.id));
        titles.push(...sc.issues.map((i) => i.title ?? ''));
        // Files sharing an id are all listed, with a DUPLICATE_ID warning naming the id.
        for (const w of state.meta.warnings ?? []) if (w.code === 'DUPLICATE_ID') duplicates.add(w.message.split(' ')[0]);
        total ??= sc.totalCount;
        cursor = sc.nextCursor;
        expect(pages < 1000, 'cursor never ends');
      } while (cursor);
      const stats = await call('issues_stats', { groupBy: 'status' });
      const repeated = [...new Set(seen.filter((id, i) => seen.indexOf(id) !== i && !duplicates.has(id)))];
      expect(!repeated.length, `issues came back twice: ${repeated.slice(0, 5)}`);
      expect(seen.length === total && total === stats.total,
        `paged ${seen.length}, totalCount ${total}, issues_stats total ${stats.total}`);
      state.firstId = seen[0];
      const words = titles.slice(0, 5).flatMap((t) => t.split(/\s+/)).map((w) => w.replace(/^[.,:;()[\]'"]+|[.,:;()[\]'"]+$/g, ''));
      state.word = words.reduce((a, b) => (b.length > a.length ? b : a), '') || 'the';
      return `${seen.length} issues in ${pages} pages of 7 = issues_stats total`;
    });

    await check('resources (list, templates, read)', async () => {
      expect(client.getServerCapabilities()?.resources, 'no resources capability');
      const { items, pages } = await listAll((cursor) => client.listResources(cursor ? { cursor } : undefined), (r) => r.resources);
      const templates = (await client.listResourceTemplates()).resourceTemplates;
      expect(templates.length, 'no resource templates');
      const issueUri = items.map((r) => r.uri).find((u) => u.startsWith('docket://issues/'));
      expect(issueUri, 'no issue resource listed');
      const body = (await client.readResource({ uri: issueUri })).contents[0].text;
      expect(body.trim(), `${issueUri} is empty`);
      const board = (await client.readResource({ uri: 'docket://board' })).contents[0].text;
      expect(board.trim(), 'docket://board is empty');
      const config = JSON.parse((await client.readResource({ uri: 'docket://config' })).contents[0].text);
      state.workspaceDir = config.workspace;
      return `${items.length} resources in ${pages} page(s), ${templates.length} templates; read ${issueUri}`;
    });

    // session_start needs a spec file: one of the workspace's own specifications.
    try {
      const dir = path.join(state.workspaceDir, 'specifications');
      const spec = readdirSync(dir).filter((f) => f.endsWith('.md')).sort()[0];
      state.specFile = path.relative(path.dirname(state.workspaceDir), path.join(dir, spec));
    } catch {
      state.specFile = new URL(import.meta.url).pathname;
    }

    const called = new Set();
    for (const [name, args, opts] of samples(state)) {
      const label = `tools/call ${name}`;
      called.add(name);
      if (!tools.has(name)) {
        fail(label, 'the sample table names a tool the server does not serve');
        continue;
      }
      await check(label, async () => {
        if (opts.before === 'pattern') {
          const raw = (await client.readResource({ uri: 'docket://errors/recent' })).contents[0].text;
          const match = JSON.parse(raw).patterns.filter((p) => p.operation === 'issues_delete');
          expect(match.length, `the failed issues_delete is not in docket://errors/recent: ${raw.slice(0, 300)}`);
          state.pattern = match[0].id;
        }
        const a = typeof args === 'function' ? args() : args;
        const sc = await call(name, a, opts.expectError);
        if (sc !== undefined && opts.post) opts.post(sc);
        return JSON.stringify(a).slice(0, 90);
      });
    }
    for (const name of [...tools.keys()].filter((n) => !called.has(n)).sort()) {
      fail(`tools/call ${name}`, 'no sample arguments in .ci/clients/ts_client.mjs; add them');
    }
  } finally {
    await client.close();
  }
}

const argv = process.argv.slice(2);
const [command, ...args] = argv.length ? argv : ['target/debug/docket', 'serve', '--demo'];
const timer = setTimeout(() => {
  fail('client', 'timed out after 120 s');
  console.log(`${LABEL}: ${passed} passed, ${failed} failed`);
  process.exit(1);
}, 120_000);
try {
  await main(command, args);
} catch (e) {
  fail('client', `${e?.name}: ${e?.message}`);
}
clearTimeout(timer);
console.log(`${LABEL}: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
