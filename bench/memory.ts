// npm run bench:memory — trawl's memory as a crawl grows: a generated web (bounded, loopback) crawled
// with the default settings (delays off) to 100,000 pages, the process's RSS (every thread) read as
// the fetched pages pass 5,000, 20,000, 50,000 and 100,000. Memory must not grow with the pages
// crawled beyond the frontier's own rows, so the web is the generated web's `steady` shape: each page
// adds one URL, the frontier stays at about one URL a host, and what grows is only the run's record
// of URLs seen. The bench fails (exit 1) if RSS grows by more than 20 % between 5,000 and 20,000
// pages. BENCH_MEMORY_PAGES sets the size (checkpoints past it are left out); BENCH_MEMORY_FRONTIER=growing
// crawls the tree-shaped web instead, whose frontier holds most of the web soon after the start.
import { runChild, trawlArgs } from './children.js';
import { startGeneratedWeb, type FrontierShape } from '../support/web/generated.js';
import { machine, publish, today } from './report.js';

const PAGES = Number(process.env.BENCH_MEMORY_PAGES ?? 100_000);
const SHAPE = (process.env.BENCH_MEMORY_FRONTIER ?? 'steady') as FrontierShape;
const HOSTS = SHAPE === 'steady' ? 100 : 20;
const CHECKPOINTS = [5_000, 20_000, 50_000, 100_000].filter((n) => n <= PAGES);
const GROWTH_LIMIT = 1.2;

const web = await startGeneratedWeb({ hosts: HOSTS, pages: PAGES, frontier: SHAPE });
let result;
try {
  const flags = { 'max-pages': String(PAGES), 'max-pages-per-host': String(PAGES), 'max-depth': String(Math.min(1000, Math.ceil(PAGES / HOSTS))) };
  result = await runChild('bench/trawl-child.mjs', trawlArgs(web.seeds(), flags, CHECKPOINTS));
} finally {
  await web.close();
}
console.log(
  `generated web (${SHAPE} frontier): ${HOSTS} hosts, ${web.pages} pages; trawl (built) with the default settings, delays off; ` +
    `${web.requests()} requests in ${(result.elapsedMs / 1000).toFixed(0)} s (${(web.requests() / (result.elapsedMs / 1000)).toFixed(0)} req/s)`,
);
const cols: Array<[string, number]> = [
  ['pages fetched', 16],
  ['URLs queued', 14],
  ['RSS (MiB)', 12],
  ['peak so far', 14],
  ['main heap used', 16],
];
console.log(cols.map(([h, w], i) => (i ? h.padStart(w) : h.padEnd(w))).join(''));
for (const c of result.rssAt ?? [])
  console.log(
    [String(c.pages), String(c.queued ?? ''), c.rssMb.toFixed(0), c.peakRssMb.toFixed(0), c.heapMb.toFixed(0)]
      .map((v, i) => (i ? v.padStart(cols[i]![1]) : v.padEnd(cols[i]![1])))
      .join(''),
  );
console.log(`peak RSS of the whole crawl: ${result.maxRssMb.toFixed(0)} MiB`);
const at = (n: number) => result.rssAt?.find((c) => c.pages === n)?.rssMb;
const first = at(5_000);
const second = at(20_000);
if (first !== undefined && second !== undefined) {
  const growth = second / first;
  const ok = growth <= GROWTH_LIMIT;
  console.log(
    `RSS from 5,000 to 20,000 pages: ${growth >= 1 ? '+' : ''}${((growth - 1) * 100).toFixed(0)} % (limit +${((GROWTH_LIMIT - 1) * 100).toFixed(0)} %): ${ok ? 'flat' : 'GROWS'}`,
  );
  if (!ok) process.exitCode = 1;
}

const notes = [
  `Generated web (${SHAPE} frontier): ${HOSTS} hosts, ${web.pages.toLocaleString('en')} pages, default settings, delays off: ${web.requests().toLocaleString('en')} requests in ${(result.elapsedMs / 1000).toFixed(0)} s (${(web.requests() / (result.elapsedMs / 1000)).toFixed(0)} requests/s).`,
  `Peak RSS of the whole crawl: ${result.maxRssMb.toFixed(0)} MiB.`,
];
if (first !== undefined && second !== undefined)
  notes.push(
    `RSS from 5,000 to 20,000 pages: ${second >= first ? '+' : ''}${((second / first - 1) * 100).toFixed(0)} % (the bench fails past +${((GROWTH_LIMIT - 1) * 100).toFixed(0)} %).`,
  );
// The steady web is the manual's figure; the growing frontier is its own block.
publish({
  bench: SHAPE === 'steady' ? 'memory' : `memory-${SHAPE}`,
  command: `${['BENCH_MEMORY_PAGES', 'BENCH_MEMORY_FRONTIER']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]} `)
    .join('')}npm run bench:memory`,
  machine: machine(),
  measured: today(),
  tables: [
    {
      columns: cols.map(([h]) => h),
      rows: (result.rssAt ?? []).map((c) => [c.pages, c.queued ?? '', Number(c.rssMb.toFixed(0)), Number(c.peakRssMb.toFixed(0)), Number(c.heapMb.toFixed(0))]),
    },
  ],
  notes,
});
