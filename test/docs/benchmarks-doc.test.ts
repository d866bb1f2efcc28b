// docs/benchmarks.md holds the benches' last results as they wrote them (`npm run bench:<name> --
// --write-docs`): a figure edited by hand, a result without its block or a block without its
// result fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BENCH_DOC, docBlocks, readResults, renderDoc, renderResult } from '../../bench/report.js';

test('every bench block of the benchmarks page is its bench’s last result, and every result has its block', () => {
  const doc = readFileSync(BENCH_DOC, 'utf8');
  const results = readResults();
  assert.ok(results.length > 0, 'bench/results holds the benches’ results');
  assert.deepEqual(docBlocks(doc).sort(), results.map((r) => r.bench).sort());
  assert.equal(renderDoc(doc, results), doc, `${BENCH_DOC} differs from bench/results: run the bench with --write-docs, never edit its block`);
});

test('a block is rewritten whole from its result, and a result without a block is refused', () => {
  const result = {
    bench: 'x',
    command: 'npm run bench:x',
    machine: '2 cores',
    measured: '2026-01-01',
    tables: [{ columns: ['a', 'b'], rows: [['one', 1234.5]] }],
  };
  const doc = 'before\n<!-- bench:x -->\nstale figure 9\n<!-- /bench:x -->\nafter\n';
  const out = renderDoc(doc, [result]);
  assert.ok(!out.includes('stale figure'));
  assert.ok(out.includes(renderResult(result)) && out.includes('| one | 1,234.5 |'), out);
  assert.equal(renderDoc(out, [result]), out, 'rendering is stable');
  assert.throws(() => renderDoc('no blocks', [result]), /has no block for bench:x/);
});
