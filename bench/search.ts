// npm run bench:search — Summarize + Index with the local provider, then hybrid search, on generated
// stores of 1k, 10k and 100k pages (prose recombined from the search fixture's sentences, seeded).
// Prints enrichment pages/s, index build time, query latency p50/p99 (hybrid, full-text, vector) and
// peak RSS per size, hybrid latency again through reader threads (as trawl serve answers), and the
// vector index's recall@10 against an exact scan of the same vectors. BENCH_SEARCH_SIZES=1000,10000 picks the sizes; each size's queries stop at 200
// rounds or 60 s (BENCH_SEARCH_QUERIES, BENCH_SEARCH_QUERY_SECONDS). BENCH_SEARCH_KEEP=DIR keeps
// each size's store in DIR/<size> and reuses it on the next run (its enrichment is then not timed).
// The p50/p99 are of a warm index: the first query after opening the store (page caches cold, the
// code not yet optimized) is printed apart, then one round of every query is run untimed.
import { existsSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUERIES } from '../support/search/corpus.js';
import { seedStore } from './search-corpus.js';
import { openLocalForWriting } from '../shared/store/local/open-local.js';
import { createProviders } from '../shared/enrich/provider-factory.js';
import { enrichAll } from '../shared/pipeline/embedded/enrich-run.js';
import { hybridSearch, type SearchMode } from '../shared/search/hybrid.js';
import { defaultSettings } from '../shared/config/settings.js';
import { SqliteVectorIndex } from '../shared/store/local/sqlite-vectors.js';
import { ReaderPool } from '../shared/store/local/reader-pool.js';
import { machine, markdownTable, publish, today, type BenchTable } from './report.js';
import { resolveSettings } from '../shared/cli/args.js';
import { crawlCommand } from '../shared/cli/crawl-command.js';
import { TEXT_WEIGHT } from '../shared/search/hybrid.js';
import { evaluateReal, startRealSite } from '../support/search/real-site.js';
import { startFixtureSite } from '../support/search/fixture-site.js';
import { evaluate } from '../support/search/evaluate.js';

const SIZES = (process.env.BENCH_SEARCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const QUERY_RUNS = Number(process.env.BENCH_SEARCH_QUERIES ?? 200);
/** Each size's query phase stops after this long, whatever the count reached. */
const QUERY_SECONDS = Number(process.env.BENCH_SEARCH_QUERY_SECONDS ?? 60);
const KEEP = process.env.BENCH_SEARCH_KEEP;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const mib = (b: number) => `${(b / 1024 ** 2).toFixed(0)} MiB`;

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
const settings = defaultSettings();
const rows: string[] = [];
console.log(`bench:search — local provider (TextRank, keyphrases, ${createProviders(settings).embedder.stamp.model}), Node ${process.version}\n`);
for (const n of SIZES) {
  const dir = KEEP ? join(KEEP, String(n)) : join(tmpdir(), `trawl-bench-search-${process.pid}-${n}`);
  const reused = KEEP !== undefined && existsSync(join(dir, 'trawl.db'));
  if (!reused) {
    rmSync(dir, { recursive: true, force: true });
    await seedStore(dir, n);
  }
  peak = 0;
  const local = openLocalForWriting(dir, 'bench');
  // As trawl enrich runs it: the local methods in one worker thread per core.
  const providers = createProviders(settings, {}, { workers: availableParallelism() });
  try {
    const started = performance.now();
    const run = await enrichAll(
      { enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now },
      { mode: 'new', concurrency: 4 * availableParallelism(), onProgress: () => (peak = Math.max(peak, process.memoryUsage.rss())) },
    );
    const buildSeconds = (performance.now() - started) / 1000;
    const deps = { enrich: local.enrich, vectors: local.vectors, embedder: providers.embedder };
    const latency: Record<SearchMode, number[]> = { hybrid: [], text: [], vector: [] };
    const firstStarted = performance.now();
    await hybridSearch(deps, { q: QUERIES[0]!.q, limit: 10 });
    const first = performance.now() - firstStarted;
    for (const { q } of QUERIES) for (const mode of ['hybrid', 'text', 'vector'] as const) await hybridSearch(deps, { q, mode, limit: 10 });
    const queryDeadline = performance.now() + QUERY_SECONDS * 1000;
    for (let i = 0; i < QUERY_RUNS && performance.now() < queryDeadline; i++) {
      const q = QUERIES[i % QUERIES.length]!.q;
      for (const mode of ['hybrid', 'text', 'vector'] as const) {
        const t = performance.now();
        await hybridSearch(deps, { q, mode, limit: 10 });
        latency[mode].push(performance.now() - t);
        peak = Math.max(peak, process.memoryUsage.rss());
      }
    }
    // As trawl serve answers: the lists and the hit details from reader threads (one a core).
    const pool = new ReaderPool(dir, local, availableParallelism());
    const readers = await pool.whenReady();
    const pooled: number[] = [];
    try {
      const viaReaders = { ...deps, ...pool.stores() };
      for (const { q } of QUERIES) await hybridSearch(viaReaders, { q, limit: 10 });
      const deadline = performance.now() + QUERY_SECONDS * 1000;
      for (let i = 0; i < QUERY_RUNS && performance.now() < deadline; i++) {
        const t = performance.now();
        await hybridSearch(viaReaders, { q: QUERIES[i % QUERIES.length]!.q, limit: 10 });
        pooled.push(performance.now() - t);
      }
    } finally {
      await pool.close();
    }
    // The vector index against an exact scan of the same vectors: recall@10 of the sketched first pass.
    const exact = new SqliteVectorIndex(local.store.db, { approximateFrom: Infinity });
    let kept = 0;
    let asked = 0;
    for (const { q } of QUERIES) {
      const [vector] = await providers.embedder.embed([q], 'query');
      const model = providers.embedder.stamp.model;
      const want = new Set((await exact.query(vector!, model, 10, {})).map((h) => h.id));
      const got = await local.vectors.query(vector!, model, 10, {});
      kept += got.filter((h) => want.has(h.id)).length;
      asked += want.size;
    }
    const recall = `${(kept / asked).toFixed(3)} (${local.vectors.lastPlan})`;
    const l = (m: SearchMode | number[]) => {
      const s = (typeof m === 'string' ? latency[m] : m).sort((a, b) => a - b);
      return `${pct(s, 50).toFixed(1)} / ${pct(s, 99).toFixed(1)} ms`;
    };
    rows.push(
      `| ${n.toLocaleString('en')} | ${(run.enriched / buildSeconds).toFixed(0)} | ${buildSeconds.toFixed(1)} s | ${first.toFixed(0)} ms | ${l('hybrid')} | ${l(pooled)} (${readers}) | ${l('text')} | ${l('vector')} | ${recall} | ${mib(peak)} |`,
    );
    console.log(
      `${n} pages: enriched ${run.enriched} (${run.failed} failed) in ${buildSeconds.toFixed(1)} s; first query ${first.toFixed(0)} ms, then hybrid ${l('hybrid')}, through ${readers} readers ${l(pooled)}; vector recall@10 ${recall}; peak RSS ${mib(peak)}`,
    );
  } finally {
    await providers.close?.();
    await local.close();
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
  }
}
clearInterval(sampler);
const header =
  '| pages | enrich + index pages/s | index build (enrich + FTS5 + vectors) | first query (cold) | hybrid p50 / p99 | hybrid through readers p50 / p99 (readers) | full-text p50 / p99 | vector p50 / p99 | vector recall@10 vs exact | peak RSS |';
console.log(
  '\n| pages | enrich + index pages/s | index build (enrich + FTS5 + vectors) | first query (cold) | hybrid p50 / p99 | hybrid through readers p50 / p99 (readers) | full-text p50 / p99 | vector p50 / p99 | vector recall@10 vs exact | peak RSS |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
// Ranking quality: questions on 24 real articles with their blog's hub pages (support/search/real-site.ts)
// and the known-answer fixture's 30 queries, each site crawled and enriched with the local provider;
// MRR and recall@5 by mode, and the hybrid MRR for full-text weights around the default.
const WEIGHTS = [0.4, 0.5, 0.6, 0.7, 0.8];
async function crawled(start: () => Promise<{ origin: string; close: () => Promise<void> }>, flags: Record<string, string>) {
  const site = await start();
  const dir = join(tmpdir(), `trawl-bench-search-quality-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const quality = resolveSettings({ data: dir, 'allow-private-network': true, 'delay-ms': '0', 'max-rps': '0', ...flags }, {});
    await crawlCommand([`${site.origin}/`], quality, { out: () => {} });
  } finally {
    await site.close();
  }
  const local = openLocalForWriting(dir, 'bench');
  const providers = createProviders(settings, {});
  await enrichAll({ enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now }, { mode: 'new', concurrency: 2 });
  const deps = { enrich: local.enrich, vectors: local.vectors, embedder: providers.embedder };
  return {
    deps,
    close: async () => {
      await providers.close?.();
      await local.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
const real = await crawled(startRealSite, { 'max-depth': '2' });
const known = await crawled(startFixtureSite, {});
const qualityRows: BenchTable['rows'] = [];
const weightRows: BenchTable['rows'] = [];
try {
  for (const mode of ['text', 'vector', 'hybrid'] as const) {
    const r = await evaluateReal(real.deps, mode);
    const k = await evaluate(known.deps, mode, (url) => new URL(url).pathname.slice(1));
    qualityRows.push([mode, r.mrr.toFixed(3), r.recallAt5.toFixed(3), r.hubAbove.length, r.hubsInTop3, k.mrr.toFixed(3), k.recallAt5.toFixed(3)]);
  }
  for (const w of WEIGHTS) {
    const r = await evaluateReal(real.deps, 'hybrid', w);
    const k = await evaluate(known.deps, 'hybrid', (url) => new URL(url).pathname.slice(1), w);
    weightRows.push([w === TEXT_WEIGHT ? `${w} (default)` : String(w), r.mrr.toFixed(3), k.mrr.toFixed(3)]);
  }
} finally {
  await real.close();
  await known.close();
}
console.log('\nranking quality (MRR, recall@5): real articles with hub pages; the known-answer fixture');
for (const r of qualityRows) console.log(r.join('  '));
console.log('hybrid MRR by full-text weight (real, known-answer):');
for (const r of weightRows) console.log(r.join('  '));

publish({
  bench: 'search',
  command: `${process.env.BENCH_SEARCH_SIZES ? `BENCH_SEARCH_SIZES=${process.env.BENCH_SEARCH_SIZES} ` : ''}npm run bench:search`,
  machine: machine(),
  measured: today(),
  tables: [
    markdownTable(header, rows),
    {
      title:
        'Ranking quality: 24 questions on real articles, with the hub pages of their blog (home, archive, tags), and the known-answer fixture (30 queries):',
      columns: [
        'mode',
        'real: MRR',
        'real: recall@5',
        'real: questions with a hub above the answer',
        'real: hub pages in the first three',
        'known-answer: MRR',
        'known-answer: recall@5',
      ],
      rows: qualityRows,
    },
    { title: "Hybrid MRR by the full-text list's weight:", columns: ['full-text weight', 'real articles', 'known-answer fixture'], rows: weightRows },
  ],
});
