// npm run bench:extract — main-content quality and speed on real pages (the extraction corpus), trawl beside
// plain Mozilla Readability, then CPU time per stage of the whole extraction.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractPage } from '../shared/extract/extract-page.js';
import { boundHtml } from '../shared/extract/bounds.js';
import { parseDocument } from '../shared/extract/dom.js';
import { extractLinks } from '../shared/links/link-context.js';
import { metadataFields } from '../shared/extract/metadata.js';
import { blockText, mainContentNodes } from '../shared/extract/main-content.js';
import { toMarkdown } from '../shared/extract/markdown.js';
import { chunkText } from '../shared/extract/chunks.js';
import { simhash } from '../shared/dedupe/simhash.js';
import { canonicalize } from '../shared/url/canonical.js';
import { articleHtml } from '../test/web/pages.js';

const CORPUS = resolve(process.env.TRAWL_CORPUS ?? '../shared/corpora/extraction-eval');
const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

interface Page {
  url: string;
  html: string;
  with: string[];
  without: string[];
}

/** The corpus pages (unpacked from its pages.tgz into ~/.cache/extraction-eval like its own scorer), or none. */
function corpusPages(): Page[] {
  if (!existsSync(join(CORPUS, 'pages.tgz'))) return [];
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'extraction-eval');
  if (!existsSync(join(cache, 'tests/evaldata.json'))) {
    mkdirSync(cache, { recursive: true });
    execFileSync('tar', ['xzf', join(CORPUS, 'pages.tgz'), '-C', cache]);
  }
  const data = JSON.parse(readFileSync(join(cache, 'tests/evaldata.json'), 'utf8')) as Record<string, { file: string; with: string[]; without: string[] }>;
  const file = (f: string) => [join(cache, 'tests/cache', f), join(cache, 'tests/eval', f)].find((p) => existsSync(p))!;
  return Object.keys(data)
    .sort()
    .map((url) => ({
      url: url.startsWith('http') ? url : `https://corpus.example/${data[url]!.file}`,
      html: readFileSync(file(data[url]!.file), 'utf8'),
      ...data[url]!,
    }));
}

interface Row {
  name: string;
  precision: number;
  recall: number;
  f1: number;
  errors: number;
  ms: number;
}

/** Scores an extractor like the corpus's own scorer: snippets found in the whitespace-normalised text, summed over pages. */
function score(name: string, pages: Page[], extract: (p: Page) => string): Row {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let errors = 0;
  extract(pages[0]!); // warm up
  const cpu0 = process.cpuUsage();
  for (const p of pages) {
    let text = '';
    try {
      text = norm(extract(p));
    } catch {
      errors++;
    }
    const hits = p.with.filter((w) => text.includes(norm(w))).length;
    tp += hits;
    fn += p.with.length - hits;
    fp += p.without.filter((w) => text.includes(norm(w))).length;
  }
  const cpu = process.cpuUsage(cpu0);
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  return {
    name,
    precision,
    recall,
    f1: (2 * precision * recall) / Math.max(1e-9, precision + recall),
    errors,
    ms: (cpu.user + cpu.system) / 1000 / pages.length,
  };
}

function stages(pages: Array<{ url: string; html: string }>): Record<string, number> {
  const t: Record<string, number> = {};
  const time = <T>(k: string, f: () => T): T => {
    const c = process.cpuUsage();
    const r = f();
    const d = process.cpuUsage(c);
    t[k] = (t[k] ?? 0) + (d.user + d.system) / 1000;
    return r;
  };
  for (const p of pages) {
    const bounded = time('bounds', () => boundHtml(p.html));
    const doc = time('parse', () => parseDocument(bounded.html));
    time('links', () => extractLinks(doc, p.url, opts));
    time('metadata', () => metadataFields(doc, p.url));
    const main = time('main content', () => mainContentNodes(doc));
    const text = time('text', () => blockText(main.nodes));
    const md = time('markdown', () => toMarkdown(main.nodes, p.url));
    time('chunks (BPE)', () => chunkText(md));
    time('simhash', () => simhash(text));
  }
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v / pages.length]));
}

const pages = corpusPages();
if (pages.length) {
  console.log(`${pages.length} real pages from ${CORPUS} (trafilatura's evaluation set), CPU time of this one thread\n`);
  const rows = [
    score('trawl `extractPage(...).text` (whole extraction)', pages, (p) => extractPage(p.html, p.url, opts).text),
    score('Readability on linkedom, as it is', pages, (p) => new Readability(parseHTML(p.html).document).parse()?.textContent ?? ''),
  ];
  console.log('| extractor | precision | recall | F1 | errors | ms/page |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(`| ${r.name} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} | ${r.f1.toFixed(3)} | ${r.errors} | ${r.ms.toFixed(1)} |`);
  console.log('| trafilatura (Python), its published floor | | | ≈ 0.925 | | |');
  console.log(`\ntargets: F1 ≥ 0.93 with precision ≥ 0.90, ≤ 30 ms/page for the whole extractPage`);
  console.log('\nCPU ms/page by stage on the corpus:');
  for (const [k, v] of Object.entries(stages(pages))) console.log(`  ${k.padEnd(14)} ${v.toFixed(2).padStart(6)}`);
} else console.log(`no corpus at ${CORPUS} (set TRAWL_CORPUS): skipping the real-page table\n`);

const synthetic = Array.from({ length: 200 }, (_, i) => ({ url: `http://blog.test/articles/${i + 1}`, html: articleHtml('blog', i + 1, 400) }));
console.log(`\n${synthetic.length} synthetic bench-web articles, CPU ms/page by stage:`);
for (const [k, v] of Object.entries(stages(synthetic))) console.log(`  ${k.padEnd(14)} ${v.toFixed(2).padStart(6)}`);
console.log(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
