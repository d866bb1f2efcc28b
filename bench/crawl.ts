// npm run bench:crawl — trawl against Crawlee's CheerioCrawler on the same synthetic web, delays off.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeb } from '../test/web/server.js';
import { webMetrics, type WebMetrics } from './web-metrics.js';

const WEB = { articles: Number(process.env.BENCH_ARTICLES ?? 400), blogHosts: Number(process.env.BENCH_HOSTS ?? 8), crawlDelaySeconds: 0 };
const CRAWLEE_MAX_REQUESTS = 8000;
const CRAWLEE_TIMEOUT_S = 240;

interface ChildResult {
  elapsedMs: number;
  cpuMs: number;
  maxRssMb: number;
  pagesStored: number;
}

function runChild(script: string, args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${script} exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
}

async function measure(
  name: string,
  script: string,
  args: (seeds: string[]) => string[],
  token: string,
): Promise<{ name: string; child: ChildResult; web: WebMetrics }> {
  const web = await startWeb(WEB);
  try {
    const child = await runChild(script, args(web.seeds()));
    return { name, child, web: webMetrics(web, token) };
  } finally {
    await web.close();
  }
}

const trawl = await measure('trawl', 'bench/run-trawl.ts', (seeds) => [JSON.stringify(seeds), join(tmpdir(), 'trawl-bench-data'), 'links'], 'trawl');
const full = await measure('trawl full', 'bench/run-trawl.ts', (seeds) => [JSON.stringify(seeds), join(tmpdir(), 'trawl-bench-data'), 'full'], 'trawl');
const crawlee = await measure(
  'crawlee',
  'bench/run-crawlee.ts',
  (seeds) => [JSON.stringify(seeds), String(CRAWLEE_MAX_REQUESTS), String(CRAWLEE_TIMEOUT_S)],
  '*',
);

const rows: Array<[string, (r: typeof trawl) => string]> = [
  ['requests (excl. robots.txt)', (r) => String(r.web.requests)],
  ['useful pages', (r) => String(r.web.usefulPages)],
  ['duplicate fetches', (r) => String(r.web.duplicateFetches)],
  ['trap fetches', (r) => String(r.web.trapFetches)],
  ['robots violations', (r) => String(r.web.robotsViolations)],
  ['time (s)', (r) => (r.child.elapsedMs / 1000).toFixed(2)],
  ['pages/s (requests)', (r) => (r.web.requests / (r.child.elapsedMs / 1000)).toFixed(1)],
  ['useful pages/s', (r) => (r.web.usefulPages / (r.child.elapsedMs / 1000)).toFixed(1)],
  ['CPU ms per page', (r) => (r.child.cpuMs / Math.max(1, r.web.requests)).toFixed(2)],
  ['peak RSS (MiB)', (r) => r.child.maxRssMb.toFixed(0)],
];
console.log(`synthetic web: ${WEB.blogHosts} blog hosts × ${WEB.articles} articles + the feature hosts, on loopback; delays off.`);
console.log(
  'trawl stores to SQLite + blobs + WARC; "links" extracts links with context (like CheerioCrawler), "full" also content, metadata, chunks and SimHash. Crawlee keeps memory storage.',
);
console.log(`${'metric'.padEnd(30)}${'trawl links'.padStart(12)}${'trawl full'.padStart(12)}${'crawlee'.padStart(12)}`);
for (const [label, get] of rows) console.log(`${label.padEnd(30)}${get(trawl).padStart(12)}${get(full).padStart(12)}${get(crawlee).padStart(12)}`);
const ratio = trawl.web.usefulPages / trawl.child.elapsedMs / (crawlee.web.usefulPages / crawlee.child.elapsedMs);
const fullRatio = full.web.usefulPages / full.child.elapsedMs / (crawlee.web.usefulPages / crawlee.child.elapsedMs);
console.log(`\nuseful pages per second: trawl (links) is ${ratio.toFixed(1)}× Crawlee; with full extraction ${fullRatio.toFixed(1)}×`);
const trawlPps = trawl.web.requests / (trawl.child.elapsedMs / 1000);
console.log(
  `targets: ≥ 300 pages/s with storage on: ${trawlPps >= 300 ? 'met' : 'MISSED'} (${trawlPps.toFixed(0)}); zero duplicates, traps and robots violations: ${trawl.web.duplicateFetches + trawl.web.trapFetches + trawl.web.robotsViolations === 0 ? 'met' : 'MISSED'}`,
);
