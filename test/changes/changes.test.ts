// What changed since the last crawl. A loopback site is crawled through `trawl serve`,
// changed (a page edited, one removed, one unlinked, a link added from the home page, the rest as
// they were), and crawled again with a monitor that asks only for /a: the CLI, the API and the
// library list exactly the expected kinds and diffs, and the webhook receiver gets only /a's change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { openStore } from '../../shared/index.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { changingSite } from './site.js';

async function receiver(): Promise<{ url: string; bodies: Array<{ type: string; data: Record<string, unknown> }>; close(): Promise<void> }> {
  const bodies: Array<{ type: string; data: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(body) as { type: string; data: Record<string, unknown> });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, close: () => new Promise((r) => server.close(() => r())) };
}

const trawl = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args], { encoding: 'utf8', env: { ...process.env, TRAWL_LOG_FORMAT: 'json' } });

/** `kind path` pairs, sorted, for comparing sets of changes. */
const pairs = (changes: Array<{ kind: string; url: string }>) => changes.map((c) => `${c.kind} ${new URL(c.url).pathname}`).sort();

test('a second crawl tells what changed: CLI, API, library and a monitored webhook agree', { timeout: 180_000 }, async () => {
  const site = await changingSite();
  const hooks = await receiver();
  const data = tempDir();
  const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0', render: 'never' }), {});
  const token = 'a-write-token-of-some-length';
  const server = await startServer(settings, { port: '0', 'write-token': token, webhook: [hooks.url] }, {});
  const post = (body: Record<string, unknown>) =>
    fetch(new URL('/crawls', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ seeds: [`${site.origin}/`], enrich: false, ...body }),
    });
  const crawlOnce = async (body: Record<string, unknown>) => {
    const posted = await post(body);
    assert.equal(posted.status, 202, await posted.clone().text());
    const { id } = (await posted.json()) as { id: string };
    await (await fetch(new URL(`/crawls/${id}/events`, server.url))).text();
    return (await (await fetch(new URL(`/crawls/${id}`, server.url))).json()) as {
      status: string;
      summary: { runId: number; changes?: Record<string, number> };
    };
  };
  const api = async (path: string) => {
    const res = await fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  let diffPath = '';
  try {
    const first = await crawlOnce({});
    assert.equal(first.status, 'finished');
    assert.equal(first.summary.changes, undefined, 'a first crawl has nothing to compare with');
    const bad = await post({ monitorKind: ['modified'] });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /monitorKind/, 'a kind that does not exist is a 400 naming the field');
    site.change();
    const second = await crawlOnce({ monitorPath: ['/a'] });
    assert.equal(second.status, 'finished');
    assert.deepEqual(second.summary.changes, { changed: 2, 'newly-linked': 1, orphaned: 1, 'rank-shift': 2, removed: 1, unchanged: 3 });

    const listed = await api('/changes');
    const expected = ['changed /', 'changed /a', 'newly-linked /d', 'orphaned /c', 'rank-shift /c', 'rank-shift /d', 'removed /b'];
    assert.deepEqual(pairs(listed.body.changes as Array<{ kind: string; url: string }>), expected);
    assert.deepEqual(pairs((await api('/changes?kind=unchanged')).body.changes as Array<{ kind: string; url: string }>), [
      'unchanged /c',
      'unchanged /d',
      'unchanged /e',
    ]);
    assert.equal((await api('/changes?kind=modified')).status, 400);
    const a = (listed.body.changes as Array<{ kind: string; url: string; urlId: string; runId: number }>).find((c) => c.url.endsWith('/a'))!;
    diffPath = `/changes/${a.runId}/${a.urlId}/diff`;
    const diff = (await api(diffPath)).body as { parts: Array<{ op: string; text: string }> };
    assert.ok(diff.parts.some((p) => p.op === '+' && /Currents run fastest/.test(p.text)));
    assert.ok(diff.parts.some((p) => p.op === '-' && /near the new/.test(p.text)));
    assert.equal((await api(`/changes/${a.runId}/${'0'.repeat(32)}/diff`)).status, 404);
  } finally {
    await server.close();
  }

  // The monitor asked for /a only: the one change told is /a's.
  const told = hooks.bodies.filter((b) => b.type === 'page.changed').flatMap((b) => b.data.changes as Array<{ kind: string; url: string }>);
  assert.deepEqual(pairs(told), ['changed /a']);

  // The library reads the same, with the measures.
  const store = openStore(data.dir);
  try {
    const changes = await store.changes();
    assert.deepEqual(pairs(changes), ['changed /', 'changed /a', 'newly-linked /d', 'orphaned /c', 'rank-shift /c', 'rank-shift /d', 'removed /b']);
    const byPath = (kind: string, path: string) => changes.find((c) => c.kind === kind && new URL(c.url).pathname === path)!;
    const edited = byPath('changed', '/a');
    assert.deepEqual(edited.measure?.fieldsChanged, ['title', 'description']);
    assert.ok(edited.measure!.blocksChanged > 0.3 && edited.measure!.blocksChanged < 0.8, JSON.stringify(edited.measure));
    assert.ok(edited.measure!.simhashDistance > 0);
    assert.equal(byPath('removed', '/b').removedBy, 404);
    assert.deepEqual(byPath('orphaned', '/c').unlinkedFrom, [`${site.origin}/`]);
    assert.deepEqual(byPath('newly-linked', '/d').linkedFrom, [`${site.origin}/`]);
    const rank = byPath('rank-shift', '/d').rank!;
    assert.deepEqual([rank.inlinksBefore, rank.inlinksAfter], [1, 2]);
    assert.equal((await store.changes({ paths: ['/b'] })).length, 1);
    const parts = await store.changeDiff(edited.runId, edited.url);
    assert.ok(parts?.some((p) => p.op === '+' && /Currents/.test(p.text)));
    assert.equal(await store.changeDiff(edited.runId, `${site.origin}/e`), undefined, 'an unchanged page has no diff');
  } finally {
    await store.close();
  }

  // The CLI: JSON lines, the text with a word diff, and a bad kind named.
  const json = trawl(['changes', '--data', data.dir, '--json']);
  assert.equal(json.status, 0, json.stderr);
  const lines = json.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; url: string });
  assert.deepEqual(pairs(lines), ['changed /', 'changed /a', 'newly-linked /d', 'orphaned /c', 'rank-shift /c', 'rank-shift /d', 'removed /b']);
  const text = trawl(['changes', '--data', data.dir, '--kind', 'changed,removed', '--path', '/a', '--path', '/b', '--diff']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^run 2 against run 1: 1 changed, 1 removed$/m);
  assert.match(text.stdout, /^changed\s+http:\S+\/a {2}"Tides and currents" {2}\d+ % of text blocks .*fields: title, description$/m);
  assert.match(text.stdout, /\{\+Currents run fastest at mid-tide\.\+\}/);
  assert.match(text.stdout, /^removed\s+http:\S+\/b {2}"Moorings" {2}answered 404$/m);
  const wrong = trawl(['changes', '--data', data.dir, '--kind', 'chnged']);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /invalid value "chnged" for --kind \(did you mean changed\?\): expected one of new, changed/);
  assert.ok(diffPath);
  await hooks.close();
  await site.close();
  data.cleanup();
});

test('a first crawl lists no changes and says why', { timeout: 60_000 }, async () => {
  const site = await changingSite();
  const data = tempDir();
  try {
    const { crawl } = await import('../../shared/index.js');
    await crawl([`${site.origin}/`], { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never', env: {} });
    const r = trawl(['changes', '--data', data.dir]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /no changes: a data directory’s first crawl has nothing to compare with/);
  } finally {
    await site.close();
    data.cleanup();
  }
});
