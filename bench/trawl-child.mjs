// Child process of bench:crawl and bench:memory: crawls with the built trawl (dist/, plain node, as a
// user runs it: no TypeScript loader thread in the process) and prints one JSON line: time, CPU, peak
// RSS (every thread of the process), the run's figures, the stage times, and the RSS each time the
// fetched pages pass a checkpoint. Argument: a JSON object {seeds, data, flags, checkpoints}.
import { readFileSync, rmSync } from 'node:fs';
import { sampleDescendants } from './browser-memory.mjs';
import { performance } from 'node:perf_hooks';
import { crawl } from '../dist/shared/library/crawl.js';
import { resolveSettings } from '../dist/shared/cli/args.js';

const { seeds, data, flags = {}, checkpoints = [] } = JSON.parse(process.argv[2]);
rmSync(data, { recursive: true, force: true });
// Delays off; a host that fails (the broken robots.txt, the throttling host) is retried after 100 ms, not 30 s, as in the old bench.
const settings = resolveSettings(
  { data, 'allow-private-network': true, 'delay-ms': '0', 'backoff-base-ms': '100', 'max-host-failures': '3', 'stage-times': true, ...flags },
  {},
);

// RSS by kind (Linux): anonymous memory (heaps, SQLite's caches) apart from mapped files.
const rssKinds = () => {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { anonMb: mb(kb('RssAnon') * 1024), fileMb: mb(kb('RssFile') * 1024), shmemMb: mb(kb('RssShmem') * 1024) };
  } catch {
    return {};
  }
};
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const rssAt = [];
let nextCheckpoint = 0;
let stages;
let stats;
const onEvent = (e) => {
  if (e.type === 'progress' || e.type === 'done') {
    stats = e.stats;
    while (nextCheckpoint < checkpoints.length && e.stats.pages >= checkpoints[nextCheckpoint]) {
      const m = process.memoryUsage();
      rssAt.push({
        pages: checkpoints[nextCheckpoint],
        rssMb: mb(m.rss),
        peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
        heapMb: mb(m.heapUsed),
        externalMb: mb(m.external),
        ...rssKinds(),
        ...(e.type === 'progress' ? { queued: e.queued } : {}),
      });
      nextCheckpoint++;
    }
  }
  if (e.type === 'render') rendered++;
  if (e.type === 'done') stages = e.stages;
};

const browser = sampleDescendants();
let rendered = 0;

const cpu0 = process.cpuUsage();
const t0 = performance.now();
// Bytes the crawl wrote to the disk (Linux: /proc/self/io's write_bytes, what reached the block layer).
const diskWrites = () => {
  try {
    return Number(/write_bytes:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
};
const written0 = diskWrites();
const summary = await crawl(seeds, { ...settings, env: {}, onEvent });
const elapsedMs = performance.now() - t0;
const browserPeakMb = browser.stop();
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({
    elapsedMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
    diskWriteMb: mb(diskWrites() - written0),
    pagesStored: summary.pagesStored,
    requests: summary.requests,
    pages: stats?.pages,
    stages,
    rssAt,
    rendered,
    browserPeakMb: settings.render === 'never' ? undefined : browserPeakMb,
  })}\n`,
);
