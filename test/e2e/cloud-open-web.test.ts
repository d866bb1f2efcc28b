// The cloud runtime on an open web, under AWS's limits: 1,200 hosts of power-law sizes whose pages
// link to a hundred and eighty others (most of them never fetched under the budget), answers 0.2–2 s apart in
// twenty-fold compressed time, some hosts slow, failing or gone. The real handlers run through the
// cloud path on the emulators (stores in a child process), with the quota layer answering as AWS
// does past a limit. The run holds 10⁵ URLs in its frontier, lives through a five-minute stall of its fetch
// workers in the middle (fifteen seconds here), and ends finished with its ranks and its archive,
// every host served one request at a time and never sooner than the run's delay.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { cloudCrawl, tableItems } from '../../support/cloud/harness.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { QuotaLayer, quotaOptionsOf } from '../../support/cloud/quota-layer.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { startOpenWeb, type OpenWeb } from '../../support/web/open-web.js';
import { STAGES } from '../../lib/stages.js';
import { frontierUrlCount } from '../../shared/store/aws/dynamo-waiting.js';

/** The web answers twenty times faster than the one it models; the run's delay and stall are compressed alike. */
const COMPRESSION = 20;
const DELAY_MS = 1000 / COMPRESSION;
const STALL_MS = (5 * 60_000) / COMPRESSION;
const PAGES = 2600;
/** The one long test of the slow suite runs once in CI, on its first Node (TRAWL_SKIP_LONG on the others). */
const skip = process.env.TRAWL_SKIP_LONG ? 'the open-web scale test runs once, on the first Node (TRAWL_SKIP_LONG is set)' : false;

let emu: Emulators;
let synth: Synthesized;
let web: OpenWeb;

before(async () => {
  if (skip) return;
  emu = await startEmulators({ stores: 'child' });
  synth = synthApp({ bundle: false });
  web = await startOpenWeb({ ownLinks: 150, otherLinks: 30, compression: COMPRESSION });
});

after(async () => {
  await web?.close();
  synth?.cleanup();
  await emu?.stop();
});

test(
  'an open-web run passes 10⁵ URLs in its frontier under AWS limits, outlives a stall, and ends finished with ranks, archive and politeness',
  { skip, timeout: 2_400_000 },
  async () => {
    const names = await emu.provision('open');
    // AWS's limits at a tenth of their size, so a run this small meets them as a large one would (the
    // run's end still runs its Distributed Map children all at once, as AWS would).
    const quota = new QuotaLayer(quotaOptionsOf(synth.template as never, STAGES, 0.1));
    quota.install();
    process.env.TRAWL_FINALIZE_SPREAD_PAGES = '1000';
    let stall: { from: number; until: number } | undefined;
    try {
      const crawl = await cloudCrawl(
        emu,
        synth,
        names,
        {
          crawl: 'open',
          // Every host's front page: a crawl's scope is its seeds' hosts.
          seeds: web.seeds(),
          settings: { allowPrivateNetwork: true, delayMs: DELAY_MS, maxPages: PAGES, maxRps: 0, backoffBaseMs: 100, timeoutMs: 5000 },
        },
        {
          workers: 4,
          pollMs: 1000,
          // A hang guard: about 16 minutes on two idle cores, 25 beside the rest of the slow suite.
          timeoutMs: 2_280_000,
          quota,
          // A turn lost for fifteen minutes (compressed) is given back by the stall's recovery. A URL's
          // claim keeps its ten minutes less what extraction here is behind (not compressed: one process's CPU).
          turnStaleMs: (15 * 60_000) / COMPRESSION,
          urlLeaseMs: 120_000,
          // Extraction is not compressed: the workers wait while 40 pages are behind, as AWS's would not need to.
          maxPendingPages: 40,
          // Eight page workflows at a time, so each extraction's time is its own, as in its own Lambda.
          pageConcurrency: 8,
          // Halfway through the budget the fetch workers take nothing for five minutes (compressed).
          paused: () => {
            const now = Date.now();
            if (!stall && web.log.length >= PAGES / 2) stall = { from: now, until: now + STALL_MS };
            return stall !== undefined && now < stall.until;
          },
        },
      );
      assert.ok(stall, 'the fetch workers stalled in the middle of the run');
      assert.equal(crawl.output.status, 'finished', JSON.stringify(crawl.output));
      assert.ok(crawl.progressChecks >= STALL_MS / 1000, `Progress checked on through the stall (${crawl.progressChecks} checks)`);

      const items = await tableItems(emu, names.table);
      // The frontier's URLs: URL items, and those still waiting in their page's batch (never admitted).
      const urls = frontierUrlCount(items);
      const urlItems = items.filter((i) => i.type === 'URL').length;
      const pages = items.filter((i) => i.type === 'PAGE');
      assert.ok(urls >= 100_000, `${urls} URLs in the frontier`);
      assert.ok(urls / pages.length >= 5, `${(urls / pages.length).toFixed(1)} URLs a page`);
      assert.ok(urlItems < urls / 2, `${urlItems} of ${urls} URLs were written as items of their own: most never reached`);
      // The budget holds to within a hundredth: a claim whose lease lapsed while its page workflow
      // still ran here (extraction is not compressed) is fetched again; on AWS a claim outlives the workflow.
      assert.ok(pages.length >= PAGES * 0.95 && pages.length <= PAGES * 1.01, `${pages.length} pages stored of a ${PAGES}-page budget`);
      // Ranks: every page fetched has its PageRank and inlink count from the run's end.
      const unranked = pages.filter((p) => typeof p.pagerank !== 'number');
      assert.equal(unranked.length, 0, `${unranked.length} pages without a rank, as ${JSON.stringify(unranked[0])}`);
      // The archive: the run's WACZ collection is in the bucket.
      const collection = await emu.clients.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: String(crawl.output.wacz) }));
      assert.ok((await collection.Body!.transformToString()).includes('multi-wacz-package'), 'the WACZ collection names its parts');

      // Politeness from the servers' side: one request at a time per host, the run's delay between them.
      const byHost = new Map<string, typeof web.log>();
      for (const entry of web.log) {
        const list = byHost.get(entry.host) ?? [];
        list.push(entry);
        byHost.set(entry.host, list);
      }
      for (const [host, entries] of byHost) {
        entries.sort((a, b) => a.start - b.start);
        for (let i = 1; i < entries.length; i++) {
          const gap = entries[i]!.start - entries[i - 1]!.end;
          assert.ok(entries[i]!.concurrent === 1, `host ${host} served two requests at once`);
          assert.ok(gap >= DELAY_MS - 5, `host ${host} was asked again ${gap} ms after an answer (delay ${DELAY_MS} ms)`);
        }
      }
      console.log(
        `open web: ${urls} URLs in the frontier (${urlItems} URL items), ${pages.length} pages, ${web.log.length} requests, quota ${JSON.stringify(quota.report)}`,
      );
      // AWS's limits: throttles are retried, never a failed call or a limit past what AWS allows.
      assert.deepEqual(quota.report.violations, []);
      // Calls still throttled after the SDK's retries failed their step, which went back with a back-off and was done again.
      // A host's group holds its turn, the next one while it is handed on, and the turns the stall's
      // recovery superseded (each dropped when it comes up): in this compressed run, where a turn's
      // stale age (45 s) is shorter than its queue's cycle (the workers are not compressed), that is
      // several; the FIFO queue as a whole stays inside SQS's scan window (a violation above).
      console.log(`open web: a host's group held ${quota.report.peaks.fifoGroupBacklog} messages at most`);
    } finally {
      quota.uninstall();
      delete process.env.TRAWL_FINALIZE_SPREAD_PAGES;
    }
  },
);
