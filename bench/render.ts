// npm run bench:render — renders 200 single-page-app pages of the synthetic web in an embedded
// crawl (--render auto decides each page), and prints renders per second, p50/p90 render time and
// the peak memory of the browser (all its processes) and of the crawler; then the app host crawled
// by trawl (built) and by Crawlee's AdaptivePlaywrightCrawler in one run (see below).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawl } from '../shared/library/crawl.js';
import { startWeb } from '../support/web/server.js';
import { runChild, trawlArgs, type ChildResult } from './children.js';
import { machine, publish, today } from './report.js';

const PAGES = Number(process.env.BENCH_RENDER_PAGES ?? 200);

/** Resident memory (bytes) of every process whose command line names this crawler's browser profile. */
function browserRss(): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`trawl-chrome-${process.pid}-`)) continue;
      total += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const mib = (b: number) => `${(b / 1024 ** 2).toFixed(0)} MiB`;

const web = await startWeb({ articles: 1, blogHosts: 1, apps: PAGES });
const data = join(tmpdir(), `trawl-bench-render-${process.pid}`);
const times: number[] = [];
let peakBrowser = 0;
let peakCrawler = 0;
const sampler = setInterval(() => {
  peakBrowser = Math.max(peakBrowser, browserRss());
  peakCrawler = Math.max(peakCrawler, process.memoryUsage.rss());
}, 100);
const started = performance.now();
try {
  await crawl([`${web.origins.apps}/spa/1`], {
    data,
    allowPrivateNetwork: true,
    delayMs: 0,
    maxRps: 0,
    maxPages: PAGES * 2 + 10,
    // The chain of apps is depth-first on one host: every page waits for the one before it.
    maxDepth: PAGES * 2 + 10,
    env: {},
    onEvent: (e) => {
      if (e.type === 'render' && e.ok && /\/spa\/\d+$/.test(e.url)) times.push(e.ms);
    },
  });
} finally {
  clearInterval(sampler);
  await web.close();
  rmSync(data, { recursive: true, force: true });
}
const elapsed = (performance.now() - started) / 1000;
const sorted = [...times].sort((a, b) => a - b);
const renderSeconds = times.reduce((a, b) => a + b, 0) / 1000;
console.log(
  `rendered ${times.length} app pages of ${PAGES} in ${elapsed.toFixed(1)} s of crawl (Node ${process.version}, ${process.platform}/${process.arch})`,
);
console.log(
  `renders per second: ${(times.length / renderSeconds).toFixed(2)} (browser busy time)  ${(times.length / elapsed).toFixed(2)} (crawl wall time, fetches and extraction included)`,
);
console.log(`render time: p50 ${pct(sorted, 50)} ms  p90 ${pct(sorted, 90)} ms  max ${sorted.at(-1) ?? 0} ms`);
console.log(`peak memory: browser ${mib(peakBrowser)} (all its processes)  crawler ${mib(peakCrawler)} (RSS)`);

// Against Crawlee's AdaptivePlaywrightCrawler: the same app host (its single-page apps, the XHR,
// polling, crashing and hanging apps, the plain pages), each crawler in its own process from the
// host's index, judged from the server's log: app pages reached, pages found only through rendered
// links, requests, wall time, and peak memory of the crawler and of its browser (PSS of every
// process below the crawler). trawl with `--render auto`, delays off; Crawlee with 16 at once.
const COMPARE_PAGES = Number(process.env.BENCH_RENDER_COMPARE_PAGES ?? 50);
interface Side {
  name: string;
  child: ChildResult;
  requests: number;
  appPages: number;
  renderedOnly: number;
  atOnce: number;
}
async function side(name: string, script: string, args: (seed: string) => string[]): Promise<Side> {
  const compareWeb = await startWeb({ articles: 1, blogHosts: 1, apps: COMPARE_PAGES });
  try {
    const child = await runChild(script, args(`${compareWeb.origins.apps}/`));
    const log = compareWeb.log.filter((e) => e.host === 'apps' && e.target !== '/robots.txt');
    return {
      name,
      child,
      requests: log.length,
      appPages: new Set(log.filter((e) => /^\/spa\/\d+$/.test(e.target)).map((e) => e.target)).size,
      renderedOnly: new Set(log.filter((e) => e.target.startsWith('/rendered-only/') && e.status === 200).map((e) => e.target)).size,
      atOnce: Math.max(0, ...log.map((e) => e.concurrent)),
    };
  } finally {
    await compareWeb.close();
  }
}
const sides = [
  await side('trawl auto', 'bench/trawl-child.mjs', (seed) =>
    trawlArgs([seed], { render: 'auto', 'max-depth': String(COMPARE_PAGES * 2 + 10), 'max-pages': String(COMPARE_PAGES * 2 + 50) }),
  ),
  await side('crawlee adaptive', 'bench/run-crawlee-adaptive.ts', (seed) => [JSON.stringify([seed]), String(COMPARE_PAGES * 2 + 50)]),
];
console.log(
  `\nthe app host (${COMPARE_PAGES} chained single-page apps, each linking a page only its rendered DOM shows) against Crawlee's AdaptivePlaywrightCrawler:`,
);
const compareRows: Array<[string, (s: Side) => string]> = [
  ['app pages reached', (s) => `${s.appPages} of ${COMPARE_PAGES}`],
  ['rendered-only pages found', (s) => `${s.renderedOnly} of ${COMPARE_PAGES}`],
  ['pages rendered', (s) => String(s.child.rendered ?? '-')],
  ['requests to the host', (s) => String(s.requests)],
  ['most requests at once to it', (s) => String(s.atOnce)],
  ['time (s)', (s) => (s.child.elapsedMs / 1000).toFixed(1)],
  ['peak RSS crawler (MiB)', (s) => s.child.maxRssMb.toFixed(0)],
  ['peak PSS browser (MiB)', (s) => (s.child.browserPeakMb ?? 0).toFixed(0)],
];
console.log(`${''.padEnd(28)}${sides.map((s) => s.name.padStart(18)).join('')}`);
for (const [label, get] of compareRows) console.log(`${label.padEnd(28)}${sides.map((s) => get(s).padStart(18)).join('')}`);

publish({
  bench: 'render',
  command: 'npm run bench:render',
  machine: machine(),
  measured: today(),
  tables: [
    {
      title: `${PAGES} single-page-app pages crawled with \`--render auto\`:`,
      columns: [
        'app pages rendered',
        'crawl (s)',
        'renders/s (browser busy)',
        'renders/s (crawl wall time)',
        'p50 (ms)',
        'p90 (ms)',
        'max (ms)',
        'browser peak (MiB)',
        'crawler peak RSS (MiB)',
      ],
      rows: [
        [
          times.length,
          Number(elapsed.toFixed(1)),
          Number((times.length / renderSeconds).toFixed(2)),
          Number((times.length / elapsed).toFixed(2)),
          pct(sorted, 50),
          pct(sorted, 90),
          sorted.at(-1) ?? 0,
          Number((peakBrowser / 1024 ** 2).toFixed(0)),
          Number((peakCrawler / 1024 ** 2).toFixed(0)),
        ],
      ],
    },
    {
      title: `The app host (${COMPARE_PAGES} chained single-page apps, each linking a page only its rendered DOM shows) against Crawlee's AdaptivePlaywrightCrawler:`,
      columns: ['', ...sides.map((s) => s.name)],
      rows: compareRows.map(([label, get]) => [label, ...sides.map(get)]),
    },
  ],
});
