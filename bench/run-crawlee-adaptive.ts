// Child process of bench:render: crawls the seeds with Crawlee's AdaptivePlaywrightCrawler (robots.txt
// respected; each page handled over plain HTTP or in Chromium as its rendering-type predictor
// decides) and prints time, CPU, its own peak RSS and the browser's peak memory (PSS of every
// process below this one, sampled every 250 ms). The browser is @sparticuz/chromium's, as trawl's.
import { AdaptivePlaywrightCrawler, Configuration, log, LogLevel } from '@crawlee/playwright';
import chromium from '@sparticuz/chromium';
import { sampleDescendants } from './browser-memory.mjs';

const [seedsJson, maxRequests] = process.argv.slice(2);
const seeds = JSON.parse(seedsJson!) as string[];
log.setLevel(LogLevel.OFF);

const browser = sampleDescendants();

const executablePath = await chromium.executablePath();
let handled = 0;
let rendered = 0;
const crawler = new AdaptivePlaywrightCrawler(
  {
    respectRobotsTxtFile: true,
    maxConcurrency: 16,
    maxRequestsPerCrawl: Number(maxRequests),
    // As trawl's bench settings: 20 s a page, a failed page tried once more.
    navigationTimeoutSecs: 20,
    requestHandlerTimeoutSecs: 30,
    maxRequestRetries: 1,
    launchContext: { launchOptions: { executablePath, args: chromium.args, headless: true } },
    async requestHandler({ querySelector, pushData, enqueueLinks, request, page }) {
      handled++;
      if (page) rendered++;
      const text = (await querySelector('body')).text().replace(/\s+/g, ' ').trim();
      const links = (await querySelector('a[href]')).length;
      await pushData({ url: request.url, textChars: text.length, links });
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ persistStorage: false, purgeOnStart: true }),
);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await crawler.run(seeds);
const elapsedMs = performance.now() - t0;
const browserPeakMb = browser.stop();
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({ elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, pagesStored: handled, rendered, browserPeakMb })}\n`,
);
process.exit(0);
