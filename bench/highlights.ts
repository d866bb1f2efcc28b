// npm run bench:highlights — what Firecrawl's `highlights` format saves a reader of trawl's answers:
// over the real pages of ../shared/corpora/modern-eval, the tokens (cl100k) of the page's passages
// for a query against those of its whole markdown, and the time the passages take. The query is
// the page's title (what a reader who found the page would ask of it); a page whose markdown holds
// none of its words has no passages and is counted apart.
import { extractPage } from '../shared/extract/extract-page.js';
import { countTokens } from '../shared/extract/chunks.js';
import { highlightsOf } from '../shared/search/highlights.js';
import { EXTRACT_OPTIONS } from './extraction-corpus.js';
import { wholeTextPages } from './whole-text.js';
import { machine, publish, today } from './report.js';

const pages = wholeTextPages();
if (!pages.length) {
  console.log('no corpus at ../shared/corpora/modern-eval (set TRAWL_WHOLE_TEXT_CORPUS)');
  process.exit(0);
}
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};
const byType = new Map<string, { page: number[]; passages: number[]; ms: number[]; none: number }>();
for (const p of pages) {
  const x = extractPage(p.html, p.url, EXTRACT_OPTIONS);
  const query = (x.metadata.title ?? x.title ?? '').slice(0, 200);
  if (!query || !x.markdown) continue;
  const started = performance.now();
  const h = highlightsOf(x.markdown, query, { language: x.metadata.language });
  const ms = performance.now() - started;
  for (const key of ['all', p.type]) {
    let row = byType.get(key);
    if (!row) byType.set(key, (row = { page: [], passages: [], ms: [], none: 0 }));
    row.ms.push(ms);
    if (!h.passages.length) {
      row.none++;
      continue;
    }
    row.page.push(countTokens(x.markdown));
    row.passages.push(countTokens(h.text));
  }
}
const rows = [...byType.entries()]
  .sort((a, b) => (a[0] === 'all' ? -1 : b[0] === 'all' ? 1 : b[1].ms.length - a[1].ms.length))
  .map(([type, r]) => {
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return [
      `${type} (${r.ms.length})`,
      String(quantile(r.page, 0.5)),
      String(quantile(r.passages, 0.5)),
      `${((1 - sum(r.passages) / Math.max(1, sum(r.page))) * 100).toFixed(0)} %`,
      String(r.none),
      quantile(r.ms, 0.5).toFixed(2),
      quantile(r.ms, 0.95).toFixed(2),
      Math.max(...r.ms).toFixed(1),
    ];
  });
const columns = ['pages', 'markdown tokens (median)', 'highlights tokens (median)', 'tokens saved (all pages)', 'no passage', 'ms p50', 'ms p95', 'ms max'];
console.log(`| ${columns.join(' | ')} |`);
console.log(`|${columns.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
publish({
  bench: 'highlights',
  command: 'npm run bench:highlights',
  machine: machine(),
  measured: today(),
  tables: [
    {
      title: `${pages.length} real pages of 2025–2026 (modern-eval), each asked its own title: the highlights format's passages against the whole markdown`,
      columns,
      rows,
    },
  ],
});
