// npm run bench:extract — full extraction speed per core and peak memory, linkedom vs jsdom, and text quality.
import { JSDOM } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { extractPage } from '../shared/extract/extract-page.js';
import { parseDocument } from '../shared/extract/dom.js';
import { textQuality } from '../shared/extract/text-quality.js';
import { chunkText } from '../shared/extract/chunks.js';
import { simhash } from '../shared/dedupe/simhash.js';
import { extractLinks } from '../shared/links/link-context.js';
import { extractMainContent } from '../shared/extract/main-content.js';
import { canonicalize } from '../shared/url/canonical.js';
import { articleHtml, listPage } from '../test/web/pages.js';
import { FIXTURES, fixtureHtml, fixtureTruth } from '../test/extract/fixtures.js';

const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const synthetic = [
  ...Array.from({ length: 200 }, (_, i) => ({ url: `http://blog.test/articles/${i + 1}`, html: articleHtml('blog', i + 1, 400) })),
  ...Array.from({ length: 20 }, (_, i) => ({ url: `http://blog.test/list?page=${i + 1}`, html: listPage('blog', i + 1, 20, 400) })),
];
const fixtures = FIXTURES.map((name) => ({ url: `https://site.example/${name}`, html: fixtureHtml(name), name }));
const pages = [...synthetic, ...fixtures];

function time(label: string, fn: () => void): number {
  fn(); // warm up
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) fn();
  const cpu = process.cpuUsage(cpu0);
  const ms = (cpu.user + cpu.system) / 1000 / ROUNDS;
  console.log(
    `${label.padEnd(44)} ${(ms / pages.length).toFixed(2).padStart(7)} ms/page  ${((pages.length * 1000) / ms).toFixed(0).padStart(6)} pages/s per core`,
  );
  return ms;
}

console.log(`${pages.length} pages (${synthetic.length} synthetic web pages + ${fixtures.length} fixtures), ${ROUNDS} rounds, CPU time of this one thread\n`);
time('full extraction (trawl, linkedom)', () => pages.forEach((p) => extractPage(p.html, p.url, opts)));
time('  parse (linkedom)', () => pages.forEach((p) => parseDocument(p.html)));
time('  parse + links with context', () => pages.forEach((p) => extractLinks(parseDocument(p.html), p.url, opts)));
time('  parse + main content + markdown', () => pages.forEach((p) => extractMainContent(parseDocument(p.html))));
const texts = pages.map((p) => extractPage(p.html, p.url, opts).markdown);
time('  chunks (BPE tokens)', () => texts.forEach((t) => chunkText(t)));
time('  simhash', () => texts.forEach((t) => simhash(t)));
const linkedom = time('Readability on linkedom', () => pages.forEach((p) => new Readability(parseDocument(p.html)).parse()));
const jsdom = time('Readability on jsdom', () => pages.forEach((p) => new Readability(new JSDOM(p.html, { url: p.url }).window.document).parse()));
console.log(`\nlinkedom is ${(jsdom / linkedom).toFixed(1)}× faster than jsdom for Readability on these pages`);

console.log('\nmain-text quality against ground truth (token precision / recall / F1):');
let ours = 0;
let plain = 0;
let onJsdom = 0;
for (const f of fixtures) {
  const truth = fixtureTruth(f.name);
  const q = textQuality(extractPage(f.html, f.url, opts).text, truth);
  const r = textQuality(new Readability(parseDocument(f.html)).parse()?.textContent ?? '', truth);
  const j = textQuality(new Readability(new JSDOM(f.html, { url: f.url }).window.document).parse()?.textContent ?? '', truth);
  ours += q.f1;
  plain += r.f1;
  onJsdom += j.f1;
  console.log(
    `  ${f.name.padEnd(14)} trawl ${q.precision.toFixed(2)}/${q.recall.toFixed(2)}/${q.f1.toFixed(3)}   plain Readability ${r.f1.toFixed(3)} (linkedom)  ${j.f1.toFixed(3)} (jsdom)`,
  );
}
const n = fixtures.length;
console.log(`  mean F1: trawl ${(ours / n).toFixed(3)}, plain Readability ${(plain / n).toFixed(3)} on linkedom, ${(onJsdom / n).toFixed(3)} on jsdom`);
console.log(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
