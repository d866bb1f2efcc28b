import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { extractPage } from '../../shared/extract/extract-page.js';
import { canonicalize } from '../../shared/url/canonical.js';

/**
 * 32 real pages of the extraction corpus (trafilatura's evaluation set, Apache-2.0, see LICENSE
 * beside them), picked by a fixed stride, with the snippets their main text must and must not hold.
 * `hits`/`leaks` are what the extractor achieved when they were recorded: a change may improve on
 * them, never fall below. The whole corpus is scored by `npm run bench:extract`.
 */
interface Case {
  file: string;
  url: string;
  with: string[];
  without: string[];
  hits: number;
  leaks: number;
}
const dir = new URL('../fixtures/extract/corpus/', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('cases.json', dir), 'utf8')) as Case[];
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };
const pageUrl = (c: Case) => (c.url.startsWith('http') ? c.url : `https://corpus.example/${c.file}`);

test('real pages keep their main text and lose their boilerplate, never worse than recorded', () => {
  let hits = 0;
  let wanted = 0;
  let leaks = 0;
  for (const c of cases) {
    const html = gunzipSync(readFileSync(new URL(c.file, dir))).toString('utf8');
    const text = norm(extractPage(html, pageUrl(c), opts).text);
    const missed = c.with.filter((w) => !text.includes(norm(w)));
    const leaked = c.without.filter((w) => text.includes(norm(w)));
    assert.ok(c.with.length - missed.length >= c.hits, `${c.url}: missed ${JSON.stringify(missed)}`);
    assert.ok(leaked.length <= c.leaks, `${c.url}: leaked ${JSON.stringify(leaked)}`);
    hits += c.with.length - missed.length;
    wanted += c.with.length;
    leaks += leaked.length;
  }
  const precision = hits / (hits + leaks);
  const recall = hits / wanted;
  assert.ok(precision >= 0.9 && recall >= 0.9, `precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`);
});
