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
// On top of that this script pages tools/list, pages issues_list with a small limit until the
// cursor runs out (the count must match issues_stats), reads resources, and then runs the manifest's
// sample calls (tools.yaml `samples:`) in order, from the JSON that `cargo run -p codegen -- samples`
// prints (path in $DOCKET_SAMPLES, default target/samples.json): each result must hold the sample's
// `expect` values, and a sample with `error` must fail with that code. tests/common/samples.rs runs
// the same list the same way.
// A served tool that no sample calls successfully is a failure, so a new tool cannot go untested.
// Prints one line per check, then `ts sdk client: N passed, N failed`; exits 1 on any failure.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const LABEL = 'ts sdk client';
const SAMPLES = process.env.DOCKET_SAMPLES || 'target/samples.json';

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

// The value at a JSON pointer (RFC 6901) in `doc`, or undefined.
function at(doc, pointer) {
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const found = Array.isArray(doc)
      ? /^\d+$/.test(token) && Number(token) < doc.length
      : doc !== null && typeof doc === 'object' && Object.hasOwn(doc, token);
    if (!found) return undefined;
    doc = doc[token];
  }
  return doc;
}

// JSON equality.
function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

// Keeps the values samples save for the later ones (the rules of tests/common/samples.rs).
class Runner {
  vars = new Map();

  save(doc, names, what) {
    for (const [name, pointer] of Object.entries(names ?? {})) {
      const value = at(doc, pointer);
      expect(value !== undefined, `${what}: nothing at ${pointer} in ${JSON.stringify(doc).slice(0, 300)}`);
      this.vars.set(name, value);
    }
  }

  // `$name` strings become the saved value; `${name}` inside a string its text.
  substitute(v) {
    if (typeof v === 'string') {
      if (v.startsWith('$') && this.vars.has(v.slice(1))) return this.vars.get(v.slice(1));
      for (const [name, value] of this.vars) {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        v = v.replaceAll('${' + name + '}', () => text);
      }
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => this.substitute(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.substitute(x)]));
    return v;
  }
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

    let lastText = '';
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
      lastText = text;
      return result.structuredContent;
    };

    await check('issues_list paging (limit 7, follow nextCursor)', async () => {
      const seen = [];
      const duplicates = new Set();
      let cursor;
      let pages = 0;
      let total;
      do {
        const sc = await call('issues_list', { limit: 7, fields: ['title'], ...(cursor ? { cursor } : {}) });
        pages++;
        seen.push(...sc.issues.map((i) => i.id));
        // Files sharing an id are all listed, with a DUPLICATE_ID warning naming the id.
        for (const w of state.meta.warnings ?? []) if (w.code === 'DUPLICATE_ID') duplicates.add(w.message.split(' ')[0]);
        total ??= sc.totalCount;
        cursor = sc.nextCursor;
        expect(pages < 1000, 'cursor never ends');
      } while (cursor);
      const stats = await call('issues_stats', { groupBy: 'status' });
      const repeated = [...new Set(seen.filter((id, i) => seen.indexOf(id) !== i && !duplicates.has(id)))];
      expect(!repeated.length, `issues came back twice: ${repeated.slice(0, 5)}`);
      // Files without frontmatter are listed (wrangler lists them) but not counted as issues.
      const plain = /(\d+) file\(s\) without frontmatter are not issues/.exec(lastText);
      const counted = stats.total + (plain ? Number(plain[1]) : 0);
      expect(seen.length === total && total === counted,
        `paged ${seen.length}, totalCount ${total}, issues_stats total ${stats.total} + ${counted - stats.total} without frontmatter`);
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
      expect(config.workspace, 'docket://config names no workspace');
      return `${items.length} resources in ${pages} page(s), ${templates.length} templates; read ${issueUri}`;
    });

    const loaded = await check(`samples (${SAMPLES})`, async () => {
      try {
        state.samples = JSON.parse(readFileSync(SAMPLES, 'utf8'));
      } catch (e) {
        throw new Failure(`${e.message}; write it with \`cargo run -p codegen -- samples > ${SAMPLES}\``);
      }
      expect(Array.isArray(state.samples), 'not a JSON array');
      return `${state.samples.length} samples from tools.yaml`;
    });
    if (!loaded) return;

    // The manifest's samples, in order: read a resource first if asked, substitute the values
    // earlier samples saved, call, check the error code or the `expect` values, save.
    const runner = new Runner();
    const succeeded = new Set();
    for (const sample of state.samples) {
      const name = sample.tool;
      const label = `tools/call ${name}`;
      if (!tools.has(name)) {
        fail(label, 'tools.yaml has a sample for a tool the server does not serve');
        continue;
      }
      await check(label, async () => {
        if (sample.read) {
          const body = JSON.parse((await client.readResource({ uri: sample.read.uri })).contents[0].text);
          runner.save(body, sample.read.save, sample.read.uri);
        }
        const a = runner.substitute(sample.args ?? {});
        const sc = await call(name, a, sample.error);
        if (sc !== undefined) {
          for (const [pointer, raw] of Object.entries(sample.expect ?? {})) {
            const want = runner.substitute(raw);
            const got = at(sc, pointer);
            expect(got !== undefined && same(got, want),
              `${pointer} is ${got === undefined ? 'missing' : JSON.stringify(got).slice(0, 200)}, expected ${JSON.stringify(want).slice(0, 200)}`);
          }
          runner.save(sc, sample.save, name);
          succeeded.add(name);
        }
        return JSON.stringify(a).slice(0, 90);
      });
    }
    for (const name of [...tools.keys()].filter((n) => !succeeded.has(n)).sort()) {
      fail(`tools/call ${name}`, 'no sample calls it successfully; add `samples:` to its entry in tools.yaml');
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
