// Child process of bench:crawl: crawls the seeds with trawl (storage on) and prints its own CPU, peak RSS and time.
import { rmSync } from 'node:fs';
import { resolveSettings } from '../shared/cli/args.js';
import { crawlCommand } from '../shared/cli/crawl-command.js';

const [seedsJson, dataDir, extract = 'full'] = process.argv.slice(2);
const seeds = JSON.parse(seedsJson!) as string[];
rmSync(dataDir!, { recursive: true, force: true });
const settings = resolveSettings(
  {
    data: dataDir,
    'allow-private-network': true,
    'delay-ms': '0',
    'max-rps': '0',
    'backoff-base-ms': '100',
    'max-host-failures': '3',
    'max-pages': '100000',
    'max-pages-per-host': '100000',
    concurrency: '16',
    extract,
  },
  {},
);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const summary = await crawlCommand(seeds, settings, { out: () => {} });
const elapsedMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({ elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, pagesStored: summary.pagesStored })}\n`,
);
