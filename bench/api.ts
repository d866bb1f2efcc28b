// npm run bench:api — the HTTP API under load on a generated 10k-page store (enriched with the local
// provider, 5 links a page): requests/s and latency p50/p99 of /search and /pages/:id through
// `trawl serve`'s server on loopback, then the search API Lambda's bundle size and cold start.
// Each route runs for BENCH_API_SECONDS (default 15) at BENCH_API_CONCURRENCY requests in flight (8),
// after BENCH_API_WARMUP seconds (3) of the same load, measured apart: the first second of a fresh
// server's load is its compiler's (the hot paths of the HTTP thread and the readers optimized while
// both cores serve), not its steady state.
import { cpSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { QUERIES } from '../support/search/corpus.js';
import { pageId, seedStore } from './search-corpus.js';
import { openLocalForWriting } from '../shared/store/local/open-local.js';
import { createProviders } from '../shared/enrich/provider-factory.js';
import { enrichAll } from '../shared/pipeline/embedded/enrich-run.js';
import { defaultSettings } from '../shared/config/settings.js';
import { startServer } from '../shared/cli/serve-command.js';
import { externalModules, LAMBDA_BANNER, UI_DIR } from '../lib/stages.js';
import { machine, markdownTable, publish, today } from './report.js';

const PAGES = Number(process.env.BENCH_API_PAGES ?? 10_000);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 15);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 8);
const WARMUP = Number(process.env.BENCH_API_WARMUP ?? 3);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Keeps CONCURRENCY requests in flight for SECONDS; every answer must be a 200. */
async function load(base: string, path: (i: number) => string, seconds: number): Promise<{ requests: number; rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let i = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await fetch(base + path(i++));
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path(i - 1)} answered ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const took = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, rps: latencies.length / took, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

const dir = join(tmpdir(), `trawl-bench-api-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
const settings = { ...defaultSettings(), data: dir };
console.log(
  `bench:api — ${PAGES.toLocaleString('en')} generated pages, ${CONCURRENCY} requests in flight for ${SECONDS} s per route, Node ${process.version}\n`,
);
try {
  const t0 = performance.now();
  await seedStore(dir, PAGES);
  const local = openLocalForWriting(dir, 'bench');
  const providers = createProviders(settings, {}, { workers: availableParallelism() });
  try {
    await enrichAll({ enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now }, { mode: 'new', concurrency: 4 * availableParallelism() });
  } finally {
    await providers.close?.();
    await local.close();
  }
  console.log(`store: seeded and enriched in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const server = await startServer(settings, { port: '0' }, {});
  const base = server.url.replace(/\/$/, '');
  const rows: string[] = [];
  try {
    const routes: Array<[string, (i: number) => string]> = [
      ['/search (hybrid, limit 10)', (i) => `/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!.q)}&limit=10`],
      ['/pages/:id', (i) => `/pages/${pageId((i * 7919) % PAGES)}`],
    ];
    for (const [name, path] of routes) {
      for (let w = 0; w < 20; w++) await (await fetch(base + path(w))).arrayBuffer(); // one at a time: every reader started
      const warm = await load(base, path, WARMUP);
      const r = await load(base, path, SECONDS);
      rows.push(
        `| ${name} | ${r.requests} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${warm.rps.toFixed(0)}, p99 ${warm.p99.toFixed(1)} ms |`,
      );
      console.log(
        `${name}: ${r.rps.toFixed(0)} requests/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (the ${WARMUP} s of warm-up before: ${warm.rps.toFixed(0)} requests/s, p99 ${warm.p99.toFixed(1)} ms)`,
      );
    }
  } finally {
    await server.close();
  }

  // The Lambda: the bundle esbuild makes for the search-api stage, and its cold start (import, then the first answer).
  // Beside the repository's node_modules, where the runtime's AWS SDK clients resolve as on Lambda; with the UI beside it.
  const bundleDir = join(import.meta.dirname, '..', '.bench-data', 'search-api');
  rmSync(bundleDir, { recursive: true, force: true });
  const outfile = join(bundleDir, 'index.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '..', 'functions', 'search-api', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    banner: { js: LAMBDA_BANNER },
    external: externalModules('search-api'),
    logLevel: 'error',
  });
  cpSync(UI_DIR, join(bundleDir, 'ui'), { recursive: true });
  const bytes = statSync(outfile).size;
  console.log(
    `\n| route | requests | requests/s | p50 | p99 | warm-up (first ${WARMUP} s) |\n|---|---:|---:|---:|---:|---:|\n${rows.join('\n')}\n\nsearch-api Lambda bundle: ${(bytes / 1024).toFixed(0)} KiB (minified ESM, AWS SDK clients of the runtime left out)`,
  );
  const coldStart = `
    const t = performance.now();
    const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
    const imported = performance.now() - t;
    const res = await handler({ version: '2.0', routeKey: '$default', rawPath: '/openapi.json', rawQueryString: '', headers: { host: 'bench.lambda-url.us-east-1.on.aws' },
      requestContext: { http: { method: 'GET', path: '/openapi.json', sourceIp: '127.0.0.1' }, domainName: 'bench.lambda-url.us-east-1.on.aws', requestId: '1', stage: '$default', timeEpoch: 0 }, isBase64Encoded: false }, {});
    console.log(JSON.stringify({ imported, first: performance.now() - t, status: res.statusCode }));`;
  const bundleKiB = (bytes / 1024).toFixed(0);
  const { spawnSync } = await import('node:child_process');
  const runs: Array<{ imported: number; first: number }> = [];
  for (let k = 0; k < 5; k++) {
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', coldStart], {
      env: { ...process.env, TABLE_NAME: 't', BUCKET_NAME: 'b', AWS_REGION: 'us-east-1', POWERTOOLS_METRICS_DISABLED: 'true' },
      encoding: 'utf8',
    });
    const line = out.stdout.trim().split('\n').pop() ?? '';
    if (!line.startsWith('{')) throw new Error(`the bundle did not start: ${out.stderr}`);
    const r = JSON.parse(line) as { imported: number; first: number; status: number };
    if (r.status !== 200) throw new Error(`/openapi.json answered ${r.status}`);
    runs.push(r);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cold = `search-api cold start (median of 5 fresh processes): import ${median(runs.map((r) => r.imported)).toFixed(0)} ms, first answer ${median(runs.map((r) => r.first)).toFixed(0)} ms after it`;
  console.log(cold);
  publish({
    bench: 'api',
    command: 'npm run bench:api',
    machine: machine(),
    measured: today(),
    tables: [
      markdownTable(
        '| route | requests | requests/s | p50 | p99 | warm-up (first ' + WARMUP + ' s) |',
        rows,
        `\`trawl serve\` on ${PAGES.toLocaleString('en')} generated pages, ${CONCURRENCY} requests in flight for ${SECONDS} s a route:`,
      ),
    ],
    notes: [`search-api Lambda bundle: ${bundleKiB} KiB (minified ESM, the runtime's AWS SDK clients left out).`, `${cold[0]!.toUpperCase()}${cold.slice(1)}.`],
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
