// bench:extract's whole-text score, as the field's article-extraction benchmark computes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageScore, wholeTextF1 } from '../../bench/whole-text.js';

const truth = 'The quick brown fox jumps over the lazy dog near the river bank today';

test('per page: 4-token shingles as a multiset, exact text scores 1, nothing found scores 0, an extra copy about halves precision', () => {
  assert.deepEqual(pageScore(truth, truth), { p: 1, r: 1 });
  assert.deepEqual(pageScore(truth, ''), { p: null, r: 0 });
  const doubled = pageScore(truth, `${truth} ${truth}`);
  assert.ok(doubled.r === 1 && doubled.p! > 0.4 && doubled.p! < 0.5, JSON.stringify(doubled));
  const half = pageScore(truth, 'The quick brown fox jumps over the lazy');
  assert.equal(half.p, 1);
  assert.ok(half.r! > 0.3 && half.r! < 0.5, JSON.stringify(half));
});

test('overall: F1 of the mean precision and the mean recall, pages without a precision left out of its mean', () => {
  const s = wholeTextF1([
    { p: 1, r: 1 },
    { p: null, r: 0 },
  ]);
  assert.equal(s.precision, 1);
  assert.equal(s.recall, 0.5);
  assert.ok(Math.abs(s.f1 - 2 / 3) < 1e-9);
});
