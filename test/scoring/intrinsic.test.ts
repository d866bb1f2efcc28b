import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intrinsicScore, type LinkFacts } from '../../shared/scoring/intrinsic.js';

const link = (url: string, fields: Partial<LinkFacts> = {}): LinkFacts => ({ url, anchor: 'Fire alarm testing', section: 'body', sameHost: true, ...fields });
const score = (url: string, fields: Partial<LinkFacts> = {}) => intrinsicScore(link(url, fields)).score;
const rules = (url: string, fields: Partial<LinkFacts> = {}) => intrinsicScore(link(url, fields)).penalties.map((p) => p.rule);

test('a short body link with a descriptive anchor on the same host scores 10; each flaw takes its points off and is named', () => {
  assert.equal(score('https://a.test/services'), 10);
  assert.equal(score('https://a.test/services/fire/alarms/testing'), 7, 'a point a segment past the first');
  assert.equal(score('https://a.test/a/b/c/d/e/f'), 7, 'depth costs 3 at most');
  assert.deepEqual(rules('https://a.test/p/123456'), ['path-depth', 'id-segment']);
  assert.equal(score('https://a.test/list?page=2&sort=asc'), 9);
  assert.deepEqual(rules('https://a.test/x?utm_source=news'), ['query-parameters', 'tracking-parameters']);
  assert.equal(score('https://a.test/logo.png'), 5);
  assert.equal(score('https://a.test/brochure.pdf'), 9);
  assert.equal(score('https://a.test/x', { anchor: '' }), 8);
  assert.equal(score('https://a.test/x', { anchor: 'Click here' }), 8.5);
  assert.equal(score('https://a.test/x', { anchor: '', imageOnly: true }), 8);
  assert.equal(score('https://a.test/x', { anchor: 'Company logo', imageOnly: true }), 9);
  assert.equal(score('https://a.test/x', { section: 'nav' }), 9);
  assert.equal(score('https://a.test/x', { section: 'footer' }), 8);
  assert.equal(score('https://b.test/x', { sameHost: false }), 8);
  assert.equal(score('not a url'), 0);
  // Everything wrong at once still stays in range.
  assert.equal(score('https://b.test/1/2/3/4/5/123456789/a.zip?utm_x=1&a=2&b=3&c=4&d=5', { anchor: '', section: 'footer', sameHost: false }), 0);
});
