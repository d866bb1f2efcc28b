// A cloud run always ends. A page workflow that never runs (an Express execution that
// timed out skips its Catch) leaves its URL in flight: the stall recovery sends it again once its
// claim lapsed, and the run drains with the URL settled. A handler that throws ends the run
// `failed` through the run machine's Catch, with its queued URLs settled, never `running`. A run
// stopped over the API ends `interrupted`. And a second run tells what changed since the first.
import { after, before, test } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { assertIamAllows, cloudCrawl, cloudEnvironment, tableItems } from '../../support/cloud/harness.js';
import { callSearchApi } from '../../support/cloud/api-call.js';
import { asFunction } from '../../support/cloud/iam.js';
import { changingSite } from '../changes/site.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { startWeb } from '../../support/web/server.js';
import { handler as initRun } from '../../functions/init-run/index.js';
import { handler as runEnded } from '../../functions/run-ended/index.js';

const SETTINGS = { allowPrivateNetwork: true, delayMs: 0, backoffBaseMs: 200, maxRps: 0, maxHostFailures: 4 };

let emu: Emulators;
let synth: Synthesized;

before(async () => {
  emu = await startEmulators();
  synth = synthApp({ bundle: false, context: { startCrawls: true, startCrawlSettings: SETTINGS } });
});

after(async () => {
  synth?.cleanup();
  await emu?.stop();
});

test('a dropped page workflow does not hold the run: its lapsed claim is sent again and the URL settles', { timeout: 300_000 }, async () => {
  const web = await startWeb({ articles: 3, blogHosts: 1, crawlDelaySeconds: 0 });
  try {
    const names = await emu.provision('dropped');
    let dropped = '';
    const crawl = await cloudCrawl(
      emu,
      synth,
      names,
      { crawl: 'dropped', seeds: [`${web.origins.blog1}/`], settings: SETTINGS },
      {
        workers: 2,
        pollMs: 100,
        timeoutMs: 240_000,
        urlLeaseMs: 1_500,
        // The first article's first page workflow is lost; its second runs.
        dropPageWorkflow: (url) => {
          if (dropped || !/\/articles\/\d+$/.test(url)) return false;
          dropped = url;
          return true;
        },
      },
    );
    assert.ok(dropped, 'a page workflow was dropped');
    assert.equal((crawl.output as { status?: string }).status, 'finished');
    const items = await tableItems(emu, names.table);
    const url = items.find((i) => String(i.SK).startsWith('URL#') && i.url === dropped);
    assert.equal(url?.state, 'done', `the dropped page's URL settled: ${JSON.stringify(url)}`);
    const run = items.find((i) => String(i.SK) === 'RUN');
    assert.equal(run?.status, 'finished');
    // The activity series is one item a minute: the run's COUNTERS item keeps a fixed, small size.
    const counters = items.find((i) => String(i.SK) === 'COUNTERS');
    assert.ok(JSON.stringify(counters).length < 1024, `COUNTERS is ${JSON.stringify(counters).length} bytes`);
    assert.ok(items.some((i) => String(i.SK).startsWith('ACT#') && Number(i.requests) > 0));
  } finally {
    await web.close();
  }
});

test('a handler that throws ends the run failed, with its queued URLs settled and the error in the report', { timeout: 300_000 }, async () => {
  const web = await startWeb({ articles: 30, blogHosts: 1, crawlDelaySeconds: 0.2 });
  try {
    const names = await emu.provision('failing');
    await assert.rejects(
      cloudCrawl(
        emu,
        synth,
        names,
        { crawl: 'failing', seeds: [`${web.origins.blog1}/`], settings: SETTINGS },
        { workers: 1, pollMs: 100, timeoutMs: 240_000, failProgressAt: 2 },
      ),
      /a run step failed/,
    );
    const items = await tableItems(emu, names.table);
    const run = items.find((i) => String(i.SK) === 'RUN');
    assert.equal(run?.status, 'failed');
    // Settled in the run's counters (the items are not rewritten): the store shows none queued.
    const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
    assert.deepEqual(await store.queuedUrls(Number(run?.id)), [], 'no URL is left queued');
    assert.equal((await store.summary(Number(run?.id))).urlsByState.queued ?? 0, 0);
    // Downstream services learn it from the bus, with the error.
    const told = emu.bus.events.filter((e) => e.bus === `${names.table}-events`);
    assert.deepEqual(
      told.map((e) => e.detailType),
      ['trawl.crawl.started', 'trawl.crawl.failed'],
    );
    assert.equal(told[1]!.detail.status, 'failed');
    assert.ok(String(told[1]!.detail.error).length > 0);
  } finally {
    await web.close();
  }
});

test('a run whose end fails twice is marked failed with its report and its failed event, never left finished', { timeout: 300_000 }, async () => {
  const web = await startWeb({ articles: 3, blogHosts: 1, crawlDelaySeconds: 0 });
  try {
    const names = await emu.provision('end-fails');
    await assert.rejects(
      cloudCrawl(
        emu,
        synth,
        names,
        { crawl: 'end-fails', seeds: [`${web.origins.blog1}/`], settings: SETTINGS },
        { workers: 1, pollMs: 100, timeoutMs: 240_000, failEnd: true },
      ),
      /a run step failed/,
    );
    const run = (await tableItems(emu, names.table)).find((i) => String(i.SK) === 'RUN');
    assert.equal(run?.status, 'failed');
    const report = JSON.parse(
      await (await emu.clients.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: `reports/run-${String(run?.id)}.json` }))).Body!.transformToString(),
    ) as { reason: string; error: { Cause?: string } };
    assert.equal(report.reason, 'failed');
    assert.match(String(report.error.Cause), /FailRun failed on purpose/);
    const told = emu.bus.events.filter((e) => e.bus === `${names.table}-events`).map((e) => e.detailType);
    assert.deepEqual(told, ['trawl.crawl.started', 'trawl.crawl.failed']);
  } finally {
    await web.close();
  }
});

test('a schedule that fires while its last run is still going starts nothing', async () => {
  const names = await emu.provision('overlap');
  Object.assign(process.env, { TABLE_NAME: names.table, BUCKET_NAME: names.bucket, QUEUE_URL: names.queueUrl });
  const input = { crawl: 'overlap', seeds: ['http://127.0.0.1:9/'], settings: SETTINGS };
  const first = await initRun(input);
  assert.ok('runId' in first);
  const second = await initRun(input);
  assert.deepEqual(second, { crawl: 'overlap', skipped: first.runId });
  const runs = (await tableItems(emu, names.table)).filter((i) => String(i.SK) === 'RUN');
  assert.equal(runs.length, 1);
});

test('an execution stopped from outside: the rule’s event marks its run failed, and the next schedule starts a run', async () => {
  const names = await emu.provision('lost');
  cloudEnvironment(emu, names, emu.endpoints.sqs!);
  const input = { crawl: 'lost', seeds: ['http://127.0.0.1:9/'], settings: SETTINGS };
  const startDate = Date.now() - 1;
  const first = await initRun(input);
  assert.ok('runId' in first);
  // The event as EventBridge delivers it (detail as Step Functions writes it).
  const event = (detail: { status: string; startDate: number }) =>
    ({
      version: '0',
      id: 'e1',
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: { executionArn: 'arn:aws:states:us-east-1:000000000000:execution:run:x', input: JSON.stringify(input), ...detail },
    }) as Parameters<typeof runEnded>[0];
  const ended = (e: Parameters<typeof runEnded>[0]) => asFunction('run-ended', () => runEnded(e));
  // A later execution of the crawl (a schedule that found the run going) failing touches no run.
  assert.deepEqual(await ended(event({ status: 'FAILED', startDate: Date.now() + 1_000 })), { outcome: 'no-running-run' });
  assert.deepEqual(await ended(event({ status: 'SUCCEEDED', startDate })), { outcome: 'execution-succeeded' });
  assert.deepEqual(await ended(event({ status: 'ABORTED', startDate })), { outcome: 'failed', runId: first.runId });
  const run = (await tableItems(emu, names.table)).find((i) => String(i.SK) === 'RUN' && Number(i.id) === first.runId);
  assert.equal(run?.status, 'failed');
  const next = await initRun(input);
  assert.ok('runId' in next && next.runId !== first.runId, JSON.stringify(next));
  assert.ok(assertIamAllows(synth) > 0);
});

test(
  'DELETE /crawls/{id} stops a running cloud crawl: the run ends interrupted with its report, its queue kept, the end told on the bus',
  { timeout: 300_000 },
  async () => {
    const web = await startWeb({ articles: 30, blogHosts: 1, crawlDelaySeconds: 0.2 });
    try {
      const names = await emu.provision('stopped');
      let stopping: unknown;
      const crawl = await cloudCrawl(
        emu,
        synth,
        names,
        { crawl: 'stopped', seeds: [`${web.origins.blog1}/`] },
        {
          workers: 1,
          pollMs: 100,
          timeoutMs: 240_000,
          throughApi: true,
          // An integrator follows the job and stops it once a few pages are stored.
          whileRunning: async (id) => {
            for (;;) {
              const job = (await callSearchApi(`/crawls/${id}`)).json();
              if (job.status === 'running' && job.progress.pagesStored >= 3) break;
              assert.ok(job.status === 'queued' || job.status === 'running', `the job ended before it was stopped: ${JSON.stringify(job)}`);
              await new Promise((r) => setTimeout(r, 100));
            }
            stopping = (await callSearchApi(`/crawls/${id}`, { method: 'DELETE' })).json();
          },
        },
      );
      try {
        assert.deepEqual(stopping, { id: crawl.jobId, stopping: true });
        assert.equal(crawl.output.status, 'interrupted');
        const job = (await callSearchApi(`/crawls/${crawl.jobId}`)).json();
        assert.equal(job.status, 'stopped');
        assert.ok(job.summary.pagesStored < 31, `stored ${job.summary.pagesStored} of 31 pages`);
        assert.ok(job.progress.queued > 0, 'the stopped run keeps its queue');
        const ended = emu.bus.events.find((e) => e.detailType === 'trawl.crawl.finished' && e.detail.crawl === `api-${crawl.jobId}`);
        assert.deepEqual([ended?.detail.status, ended?.detail.reason], ['interrupted', 'stopped']);
        const items = await tableItems(emu, names.table);
        assert.equal(items.find((i) => String(i.SK) === 'RUN')?.status, 'interrupted');
      } finally {
        await crawl.close();
      }
    } finally {
      await web.close();
    }
  },
);

test('a second cloud run records what changed per page and tells the monitored changes on the bus', { timeout: 300_000 }, async () => {
  const site = await changingSite();
  // Both runs end as a large run's do: shard by shard, the changes a partition at a time.
  process.env.TRAWL_FINALIZE_SPREAD_PAGES = '0';
  try {
    const names = await emu.provision('changes');
    const crawl = (settings: Record<string, unknown>) =>
      cloudCrawl(
        emu,
        synth,
        names,
        { crawl: 'harbour', seeds: [`${site.origin}/`], settings: { ...SETTINGS, ...settings } },
        { workers: 1, pollMs: 100, timeoutMs: 240_000 },
      );
    const first = await crawl({});
    assert.equal(first.output.status, 'finished');
    assert.equal(first.output.changes, undefined, "a table's first run has nothing to compare with");
    site.change();
    const second = await crawl({ monitorPath: ['/a'] });
    const runId = second.output.runId as number;
    // /c is linked from no page any more: the run asks for it (the home page dropped its link), finds
    // it still served (a 304) and calls it orphaned, with a rank shift, as the embedded crawl does.
    assert.deepEqual(second.output.changes, { changed: 2, unchanged: 3, removed: 1, orphaned: 1, 'newly-linked': 1, 'rank-shift': 2 });

    const pairs = (changes: Array<{ kind: string; url: string }>) => changes.map((c) => `${c.kind} ${new URL(c.url).pathname}`).sort();
    const listed = (await callSearchApi('/changes')).json().changes as Array<{
      kind: string;
      url: string;
      urlId: string;
      runId: number;
      measure?: { fieldsChanged: string[] };
    }>;
    assert.deepEqual(pairs(listed), ['changed /', 'changed /a', 'newly-linked /d', 'orphaned /c', 'rank-shift /c', 'rank-shift /d', 'removed /b']);
    const shift = listed.find((c) => c.kind === 'rank-shift' && c.url.endsWith('/d')) as { rank?: { inlinksBefore: number; inlinksAfter: number } } | undefined;
    assert.deepEqual([shift?.rank?.inlinksBefore, shift?.rank?.inlinksAfter], [1, 2]);
    const byKind = (kind: string, path: string) => listed.find((c) => c.kind === kind && new URL(c.url).pathname === path) as Record<string, unknown>;
    assert.deepEqual(byKind('newly-linked', '/d').linkedFrom, [`${site.origin}/`]);
    assert.deepEqual(byKind('orphaned', '/c').unlinkedFrom, [`${site.origin}/`]);
    assert.equal(byKind('removed', '/b').removedBy, 404);
    assert.deepEqual(pairs((await callSearchApi('/changes?kind=unchanged')).json().changes), ['unchanged /c', 'unchanged /d', 'unchanged /e']);
    const a = listed.find((c) => c.url.endsWith('/a'))!;
    assert.deepEqual([a.runId, a.measure?.fieldsChanged], [runId, ['title', 'description']]);
    const diff = (await callSearchApi(`/changes/${runId}/${a.urlId}/diff`)).json() as { parts: Array<{ op: string; text: string }> };
    assert.ok(diff.parts.some((p) => p.op === '+' && /Currents run fastest/.test(p.text)));
    assert.ok(diff.parts.some((p) => p.op === '-' && /near the new/.test(p.text)));

    // The monitor asked for /a only: the one change on the bus is /a's, before the run's end.
    const told = emu.bus.events.filter((e) => e.bus.startsWith('changes') && e.detailType === 'trawl.page.changed');
    assert.deepEqual(
      told.map((e) => [e.detail.runId, e.detail.kind, new URL(String(e.detail.url)).pathname]),
      [[runId, 'changed', '/a']],
    );
    const ends = emu.bus.events.filter((e) => e.bus.startsWith('changes')).map((e) => e.detailType);
    assert.deepEqual(ends.slice(-2), ['trawl.page.changed', 'trawl.crawl.finished']);
    // What the API read (changes, their texts in S3), checked against the search API's role.
    assert.ok(assertIamAllows(synth) > 0);
  } finally {
    delete process.env.TRAWL_FINALIZE_SPREAD_PAGES;
    await site.close();
  }
});
