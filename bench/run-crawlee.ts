// Child process of bench:crawl: crawls the seeds with Crawlee's CheerioCrawler (robots.txt respected) and prints CPU, peak RSS and time.
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';

const [seedsJson, maxRequests, timeoutSecs] = process.argv.slice(2);
const seeds = JSON.parse(seedsJson!) as string[];
log.setLevel(LogLevel.OFF);
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
let stored = 0;
const crawler = new CheerioCrawler(
  {
    respectRobotsTxtFile: true,
    maxConcurrency: 16,
    maxRequestsPerCrawl: Number(maxRequests),
    requestHandlerTimeoutSecs: 30,
    async requestHandler({ enqueueLinks }) {
      stored++;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  config,
);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const timer = setTimeout(() => void crawler.teardown(), Number(timeoutSecs) * 1000);
await crawler.run(seeds);
clearTimeout(timer);
const elapsedMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({ elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, pagesStored: stored })}\n`,
);
process.exit(0);
