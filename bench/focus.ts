// npm run bench:focus — focused crawling on a generated topical web (loopback, delays off): how many
// on-topic pages a crawl fetches within a page budget (the harvest rate) with the general priority,
// best-first with the fire-protection profile (as the embedded crawl runs it), best-first with head
// previews, and the cloud's policy (SQS has no priorities: only links scoring at or above the
// profile's threshold are sent, and a host's messages come out in the order they were sent). The
// cloud policy is emulated in-process with the same scorer (a priority that keeps discovery order
// among admitted links and puts the rest after the budget); the e2e test cloud-focus runs the real
// cloud path. Then what the cloud policy keeps of the embedded crawl's on-topic pages.
// BENCH_FOCUS_PAGES (default 1500) and BENCH_FOCUS_BUDGET (default 150) size it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machine, publish, today } from './report.js';
import { crawl } from '../shared/library/crawl.js';
import type { PriorityFn } from '../shared/frontier/priority.js';
import { focusedPriority } from '../shared/scoring/focus.js';
import { loadProfile } from '../shared/scoring/profile.js';
import { serve } from '../support/helpers.js';

const PAGES = Number(process.env.BENCH_FOCUS_PAGES ?? 1500);
const BUDGET = Number(process.env.BENCH_FOCUS_BUDGET ?? 150);
const ON_TOPIC_SHARE = 0.08;

// A seeded generator: the same web every run.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;

const TOPIC = [
  'Fire Sprinkler Inspection',
  'Fire Alarm Testing',
  'Suppression System Installation',
  'Extinguisher Maintenance',
  'Sprinkler Repair',
  'Fire Protection Design',
];
const OTHER = [
  'Pasta Recipes',
  'Hiking Trails',
  'Football Scores',
  'Garden Tips',
  'Travel Deals',
  'Movie Reviews',
  'Car Insurance',
  'Yoga Classes',
  'Jazz Concerts',
  'Home Loans',
];
const PLACES = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Georgetown', 'Salem', 'Madison', 'Franklin', 'Dover', 'Hudson'];

interface Page {
  title: string;
  onTopic: boolean;
  links: number[];
}
const pages: Page[] = Array.from({ length: PAGES }, (_, i) => {
  const onTopic = i > 0 && rand() < ON_TOPIC_SHARE;
  return { title: i === 0 ? 'Welcome' : `${pick(onTopic ? TOPIC : OTHER)} in ${pick(PLACES)} ${i}`, onTopic, links: [] };
});
const topical = pages.map((p, i) => (p.onTopic ? i : -1)).filter((i) => i >= 0);
for (const [i, p] of pages.entries()) {
  // Topical locality: on-topic pages link to on-topic pages more often than chance.
  const n = i === 0 ? 20 : 10;
  for (let k = 0; k < n; k++) p.links.push(p.onTopic && rand() < 0.4 ? pick(topical) : 1 + Math.floor(rand() * (PAGES - 1)));
}

function html(i: number): string {
  const p = pages[i]!;
  const links = p.links
    .map((t) => {
      const target = pages[t]!;
      // Three links in ten say only "Read more" (fixed per link, so every strategy sees the same web).
      const anchor = (i * 31 + t * 17) % 10 < 3 ? 'Read more' : target.title;
      return `<p>${target.title.split(' in ')[0]} near you. <a href="/p/${t}">${anchor}</a></p>`;
    })
    .join('');
  return `<!doctype html><html><head><title>${p.title}</title><meta name="description" content="${p.title} — details and prices."></head><body><main><h1>${p.title}</h1>${links}</main></body></html>`;
}

const server = await serve((req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
  const i = path === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? NaN);
  if (!pages[i]) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html' }).end(html(i));
});
/** Pages fetched in full (stored), by index: previews are requests too, but not pages. */
let fetched: number[] = [];
const indexOf = (url: string) => (new URL(url).pathname === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(new URL(url).pathname)?.[1]));

/** The cloud's policy in-process: admitted links (score ≥ threshold) in discovery order; the rest only after them. */
function cloudPolicy(): PriorityFn {
  const profile = loadProfile('fire-protection');
  const score = focusedPriority(profile);
  let order = 0;
  return (input) => {
    const s = score({ ...input, depth: 0, inlinks: 0 });
    order++;
    if (input.structural) return 2;
    return s >= profile.threshold ? 1 - order * 1e-7 : -1 - order * 1e-7;
  };
}

interface Row {
  name: string;
  pages: number[];
  requests: number;
  seconds: number;
}
const rows: Row[] = [];
const runs: Array<[string, Record<string, unknown>]> = [
  ['general priority (no profile)', {}],
  ['focused, best-first (embedded)', { profile: 'fire-protection' }],
  ['focused + --preview (embedded)', { profile: 'fire-protection', preview: true, previewsPerPage: 5 }],
  ['focused, cloud policy (threshold + FIFO)', { profile: 'fire-protection', priority: cloudPolicy() }],
];
console.log(
  `bench:focus — ${PAGES} pages (${topical.length} on topic, ${((100 * topical.length) / PAGES).toFixed(1)} %), budget ${BUDGET} pages, Node ${process.version}\n`,
);
for (const [name, options] of runs) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-focus-'));
  fetched = [];
  const started = performance.now();
  try {
    const summary = await crawl([`${server.origin}/`], {
      data: dir,
      maxPages: BUDGET,
      allowPrivateNetwork: true,
      delayMs: 0,
      maxRps: 0,
      env: {},
      onPage: ({ url }) => void fetched.push(indexOf(url)),
      ...options,
    });
    rows.push({ name, pages: [...new Set(fetched)], requests: summary.requests, seconds: (performance.now() - started) / 1000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
await server.close();

const columns = ['strategy', 'requests (previews included)', 'pages fetched', 'on-topic pages', 'harvest rate', 'wall'];
const table = rows.map((r) => {
  const hits = r.pages.filter((i) => pages[i]!.onTopic).length;
  return [r.name, r.requests, r.pages.length, hits, `${((100 * hits) / Math.max(1, r.pages.length)).toFixed(1)} %`, `${r.seconds.toFixed(1)} s`];
});
console.log(`| ${columns.join(' | ')} |\n|---|---:|---:|---:|---:|---:|`);
for (const r of table) console.log(`| ${r.join(' | ')} |`);
const embedded = new Set(rows[1]!.pages.filter((i) => pages[i]!.onTopic));
const cloud = new Set(rows[3]!.pages.filter((i) => pages[i]!.onTopic));
const kept = [...embedded].filter((i) => cloud.has(i)).length;
const comparison = `Cloud policy against embedded best-first: ${cloud.size} against ${embedded.size} on-topic pages (${((100 * cloud.size) / Math.max(1, embedded.size)).toFixed(0)} %); ${kept} of the embedded crawl's on-topic pages also fetched by the cloud policy (${((100 * kept) / Math.max(1, embedded.size)).toFixed(0)} %).`;
console.log(`\n${comparison}`);
publish({
  bench: 'focus',
  command: 'npm run bench:focus',
  machine: machine(),
  measured: today(),
  tables: [{ title: `${PAGES} pages (${topical.length} on topic), a budget of ${BUDGET} pages:`, columns, rows: table }],
  notes: [comparison],
});
