// The one decision both stores make as a fetch commits (contentChange), its measure, rank shifts,
// and the monitor's rules, case by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentChange, markdownBlocks, measureChange, rankShift, type PreviousState } from '../../shared/changes/page-change.js';
import { told, type Monitor } from '../../shared/changes/monitor.js';
import { simhash } from '../../shared/dedupe/simhash.js';
import type { ChangeRecord, ExtractRecord, FetchCommit } from '../../shared/ports/index.js';

const extract = (markdown: string, extra: Partial<ExtractRecord> = {}): ExtractRecord => ({
  urlId: 'u',
  runId: 2,
  snapshot: 's',
  wordCount: 1,
  readingMinutes: 1,
  method: 'readability',
  markdown,
  textHash: `t:${markdown}`,
  simhash: simhash(markdown),
  metadata: {},
  ...extra,
});

function commit(status: number, opts: { hash?: string; x?: ExtractRecord; notModified?: boolean; runId?: number } = {}): FetchCommit {
  const runId = opts.runId ?? 2;
  return {
    runId,
    urlId: 'u',
    state: 'done',
    attempts: 1,
    fetch: {
      runId,
      urlId: 'u',
      url: 'https://a.test/p',
      kind: 'page',
      fetcher: 'http',
      status,
      fetchedAt: 1,
      durationMs: 1,
      bytes: 1,
      truncated: false,
      notModified: opts.notModified ?? false,
    },
    ...(opts.hash ? { page: { urlId: 'u', url: 'https://a.test/p', host: 'a.test', runId, status, mime: 'text/html', contentHash: opts.hash } as never } : {}),
    ...(opts.x ? { extract: opts.x } : {}),
  };
}

const before = extract('# Title\n\nFirst paragraph.\n\nSecond paragraph.', { title: 'Title', fields: { price: 10 } });
const prev: PreviousState = { runId: 1, contentHash: 'h1', textHash: before.textHash, extract: before };

test('the content kind of a fetch against what the store held', () => {
  assert.equal(contentChange(undefined, commit(200, { hash: 'h1', x: before }))?.kind, 'new');
  assert.equal(contentChange(prev, commit(304, { notModified: true }))?.kind, 'unchanged');
  assert.equal(contentChange(prev, commit(200, { hash: 'h1', x: before }))?.kind, 'unchanged');
  assert.equal(contentChange(prev, commit(200, { hash: 'h2', x: { ...before, snapshot: 'h2' } }))?.kind, 'unchanged', 'other bytes, the same text');
  assert.deepEqual(contentChange(prev, commit(410)), { kind: 'removed', removedBy: 410 });
  const after = extract('# Title\n\nFirst paragraph.\n\nA new second paragraph.', { title: 'Title 2', fields: { price: 12 } });
  const changed = contentChange(prev, commit(200, { hash: 'h2', x: after }));
  assert.equal(changed?.kind, 'changed');
  assert.deepEqual(changed?.measure?.fieldsChanged, ['title', 'fields.price']);
  assert.deepEqual([changed?.measure?.blocksAdded, changed?.measure?.blocksRemoved, changed?.measure?.blocksChanged], [1, 1, 0.333]);
  assert.ok(changed!.measure!.simhashDistance > 0);
  assert.deepEqual(contentChange({ runId: 1, contentHash: 'h1' }, commit(200, { hash: 'h2' })), { kind: 'changed' }, 'no extraction: the bytes decide');
  // What says nothing about the page: a redirect, a retry, a second pass of the same run, a failure to connect.
  assert.equal(contentChange(prev, commit(301)), undefined);
  assert.equal(contentChange(prev, commit(503)), undefined);
  assert.equal(contentChange({ ...prev, runId: 2 }, commit(200, { hash: 'h2', x: after })), undefined);
  assert.equal(contentChange(prev, { ...commit(200), fetch: { ...commit(200).fetch!, status: undefined } }), undefined);
  // Gone stays gone until it comes back, and then it is new.
  const removed: PreviousState = { ...prev, lastKind: 'removed' };
  assert.equal(contentChange(removed, commit(404)), undefined);
  assert.equal(contentChange(removed, commit(200, { hash: 'h3', x: after }))?.kind, 'new');
  assert.equal(contentChange(undefined, commit(404)), undefined, 'never stored, never removed');
});

test('text blocks are paragraphs, headings, list items and table rows, whitespace folded', () => {
  assert.deepEqual(markdownBlocks('# H\n\nA  b\nc\n\n- one\n- two\n\n| x |\n| y |'), ['# H', 'A b c', '- one', '- two', '| x |', '| y |']);
  const m = measureChange(before, extract(before.markdown, { title: 'Title', fields: { price: 10 } }));
  assert.deepEqual(m, { simhashDistance: 0, blocksChanged: 0, blocksAdded: 0, blocksRemoved: 0, fieldsChanged: [] });
});

test('a rank shift needs its inlinks to change and its PageRank to move by half', () => {
  assert.equal(rankShift({ inlinks: 1, pagerank: 0.1 }, { inlinks: 2, pagerank: 0.17 }), true);
  assert.equal(rankShift({ inlinks: 1, pagerank: 0.1 }, { inlinks: 2, pagerank: 0.12 }), false);
  assert.equal(rankShift({ inlinks: 3, pagerank: 0.1 }, { inlinks: 3, pagerank: 0.3 }), false, 'the graph around it moved, not its own links');
  assert.equal(rankShift({ inlinks: 1, pagerank: 0 }, { inlinks: 0, pagerank: 0.02 }), true);
});

test('a monitor tells the changes it asks for, every one but unchanged by default', () => {
  const none: Monitor = { paths: [], kinds: [], minChange: 0, fields: [] };
  const change = (kind: ChangeRecord['kind'], path: string, measure?: ChangeRecord['measure']): ChangeRecord => ({
    runId: 2,
    urlId: path,
    url: `https://a.test${path}`,
    kind,
    at: 1,
    ...(measure ? { measure } : {}),
  });
  const small = { simhashDistance: 2, blocksChanged: 0.05, blocksAdded: 1, blocksRemoved: 1, fieldsChanged: ['fields.price'] };
  assert.equal(told(none, change('changed', '/a', small)), true);
  assert.equal(told(none, change('unchanged', '/a')), false);
  assert.equal(told({ ...none, kinds: ['unchanged'] }, change('unchanged', '/a')), true);
  assert.equal(told({ ...none, paths: ['/blog/'] }, change('removed', '/a')), false);
  assert.equal(told({ ...none, paths: ['/blog/'] }, change('removed', '/blog/x')), true);
  assert.equal(told({ ...none, minChange: 0.2 }, change('changed', '/a', small)), false, 'too small a change');
  assert.equal(told({ ...none, minChange: 0.2, fields: ['price'] }, change('changed', '/a', small)), true, 'but its price changed');
  assert.equal(told({ ...none, fields: ['title'] }, change('changed', '/a', small)), false, 'fields alone: only a field change is told');
  assert.equal(told({ ...none, minChange: 0.9 }, change('removed', '/a')), true, 'the minimum is about changed pages');
});
