// npm run bench:crawl — trawl (built, storage on, its default settings but for delays) against
// Crawlee's CheerioCrawler on the same synthetic web in one run, delays off: the bench web (8 blog
// hosts × 400 articles, the feature hosts — traps, robots.txt variants, throttling — and on every
// blog host a 20 MB page, PDFs and a long set of redirects, plus an app host of single-page apps
// whose content and links exist only once rendered), each crawler in its own process, judged from
// the server's request log; trawl with `--render never` and with the default `--render auto`. Then
// where trawl's time goes, by stage; then a 1-host and a 2-host crawl with each page processed in
// its host's turn and off it.
import { startWeb } from '../support/web/server.js';
import { startGeneratedWeb } from '../support/web/generated.js';
import { webMetrics, type WebMetrics } from './web-metrics.js';
import { stageText } from '../shared/cli/render.js';
import { runChild, trawlArgs } from './children.js';
import { machine, publish, today, type BenchTable } from './report.js';

const WEB = {
  articles: Number(process.env.BENCH_ARTICLES ?? 400),
  blogHosts: Number(process.env.BENCH_HOSTS ?? 8),
  crawlDelaySeconds: 0,
  heavy: { pdfs: 5, redirects: 100 },
  apps: Number(process.env.BENCH_APPS ?? 100),
};
const CRAWLEE_MAX_REQUESTS = 10_000;
const CRAWLEE_TIMEOUT_S = 300;
const MEMORY_TARGET_MB = 150;

async function onBenchWeb(name: string, script: string, args: (seeds: string[]) => string[], token: string) {
  const web = await startWeb(WEB);
  try {
    const child = await runChild(script, args(web.seeds()));
    return { name, child, web: webMetrics(web, token) as WebMetrics };
  } finally {
    await web.close();
  }
}

const never = await onBenchWeb('trawl never', 'bench/trawl-child.mjs', (s) => trawlArgs(s, { render: 'never' }), 'trawl');
const auto = await onBenchWeb('trawl auto', 'bench/trawl-child.mjs', (s) => trawlArgs(s, { render: 'auto' }), 'trawl');
const crawlee = await onBenchWeb(
  'crawlee',
  'bench/run-crawlee.ts',
  (seeds) => [JSON.stringify(seeds), String(CRAWLEE_MAX_REQUESTS), String(CRAWLEE_TIMEOUT_S)],
  '*',
);

type Run = typeof never;
const rate = (r: Run) => r.web.requests / (r.child.elapsedMs / 1000);
const rows: Array<[string, (r: Run) => string]> = [
  ['requests (excl. robots.txt)', (r) => String(r.web.requests)],
  ['useful pages', (r) => String(r.web.usefulPages)],
  ['duplicate fetches', (r) => String(r.web.duplicateFetches)],
  ['trap fetches', (r) => String(r.web.trapFetches)],
  ['robots violations', (r) => String(r.web.robotsViolations)],
  ['pages rendered', (r) => (r.child.rendered === undefined ? '-' : String(r.child.rendered))],
  ['time (s)', (r) => (r.child.elapsedMs / 1000).toFixed(2)],
  ['requests/s', (r) => rate(r).toFixed(1)],
  ['useful pages/s', (r) => (r.web.usefulPages / (r.child.elapsedMs / 1000)).toFixed(1)],
  ['CPU ms per request', (r) => (r.child.cpuMs / Math.max(1, r.web.requests)).toFixed(2)],
  ['peak RSS (MiB, crawler)', (r) => r.child.maxRssMb.toFixed(0)],
  ['disk written (MiB)', (r) => (typeof r.child.diskWriteMb === 'number' ? r.child.diskWriteMb.toFixed(0) : '-')],
  ['peak RSS (MiB, + browser)', (r) => (r.child.browserPeakMb === undefined ? '-' : (r.child.maxRssMb + r.child.browserPeakMb).toFixed(0))],
];
console.log(
  `bench web: ${WEB.blogHosts} blog hosts × ${WEB.articles} articles (each with a 20 MB page, ${WEB.heavy.pdfs} PDFs and ${WEB.heavy.redirects} redirects), ` +
    `an app host of ${WEB.apps} single-page apps, and the feature hosts (traps, robots.txt variants, throttling), on loopback; delays off.`,
);
console.log(
  'trawl (built: dist/, plain node, default settings but --delay-ms 0) stores to SQLite + blobs + WARC; Crawlee keeps memory storage (robots.txt respected, 16 at once).',
);
console.log(`${'metric'.padEnd(30)}${'trawl never'.padStart(13)}${'trawl auto'.padStart(13)}${'crawlee'.padStart(12)}`);
for (const [label, get] of rows) console.log(`${label.padEnd(30)}${get(never).padStart(13)}${get(auto).padStart(13)}${get(crawlee).padStart(12)}`);
const useful = (r: Run) => r.web.usefulPages / r.child.elapsedMs;
console.log(
  `\nuseful pages per second: trawl --render never is ${(useful(never) / useful(crawlee)).toFixed(1)}× Crawlee, --render auto ${(useful(auto) / useful(crawlee)).toFixed(1)}×`,
);
for (const r of [never, auto]) if (r.child.stages) console.log(`\n${r.name}: ${stageText(r.child.stages, r.child.requests ?? r.web.requests)}`);

// One host and two, delays off: each page processed in its host's turn (--processing-queue 0) or off it (default).
console.log("\nprocessing off the host's path, delays off (a generated web, full extraction):");
console.log(`${'hosts'.padEnd(8)}${'pages'.padStart(8)}${'in its turn'.padStart(16)}${'off its path'.padStart(16)}${'gain'.padStart(8)}`);
const processingRows: BenchTable['rows'] = [];
for (const hosts of [1, 2]) {
  const perQueue: number[] = [];
  for (const queue of ['0', '64']) {
    const web = await startGeneratedWeb({ hosts, pages: 1500 });
    try {
      const r = await runChild('bench/trawl-child.mjs', trawlArgs(web.seeds(), { 'processing-queue': queue }));
      perQueue.push(web.requests() / (r.elapsedMs / 1000));
    } finally {
      await web.close();
    }
  }
  processingRows.push([hosts, 1500, Number(perQueue[0]!.toFixed(0)), Number(perQueue[1]!.toFixed(0)), `${(perQueue[1]! / perQueue[0]!).toFixed(1)}×`]);
  console.log(
    `${String(hosts).padEnd(8)}${'1500'.padStart(8)}${`${perQueue[0]!.toFixed(0)} req/s`.padStart(16)}${`${perQueue[1]!.toFixed(0)} req/s`.padStart(16)}${`${(perQueue[1]! / perQueue[0]!).toFixed(1)}×`.padStart(8)}`,
  );
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const targets = [
  `--render never ≥ 5× Crawlee's useful pages/s: ${verdict(useful(never) >= 5 * useful(crawlee))} (${(useful(never) / useful(crawlee)).toFixed(1)}×)`,
  `peak RSS ≤ ${MEMORY_TARGET_MB} MiB (--render never, ${never.web.requests} requests): ${verdict(never.child.maxRssMb <= MEMORY_TARGET_MB)} (${never.child.maxRssMb.toFixed(0)})`,
  `zero duplicates, traps and robots violations: ${verdict([never, auto].every((r) => r.web.duplicateFetches + r.web.trapFetches + r.web.robotsViolations === 0))}`,
];
console.log(`\ntargets: ${targets.join('; ')}`);
publish({
  bench: 'crawl',
  command: 'npm run bench:crawl',
  machine: machine(),
  measured: today(),
  tables: [
    {
      columns: ['metric', 'trawl `--render never`', 'trawl `--render auto`', 'Crawlee'],
      rows: rows.map(([label, get]) => [label, get(never), get(auto), get(crawlee)]),
    },
    {
      title: "Processing off the host's path, delays off (a generated web of 1,500 pages, full extraction), requests a second:",
      columns: ['hosts', 'pages', 'in its turn (`--processing-queue 0`)', 'off its path (default)', 'gain'],
      rows: processingRows,
    },
  ],
  notes: [
    `Useful pages a second: trawl \`--render never\` ${(useful(never) / useful(crawlee)).toFixed(1)}× Crawlee, \`--render auto\` ${(useful(auto) / useful(crawlee)).toFixed(1)}×.`,
    `Targets: ${targets.join('; ')}.`,
  ],
});
