// The Render step of the page workflow on the cloud path: Extract decides, the real Render handler
// drives local Chromium under the host's claim, Extract runs again on the DOM, and the rendered
// records reach the WARC files in S3. The handler runs as in Lambda (AWS_LAMBDA_FUNCTION_NAME set),
// so Chromium runs with Lambda's flags (--single-process: one browser context).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { closeRenderers } from '../../functions/runtime.js';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { readWarcBytes } from '../../support/crawl-helpers.js';
import { itemMarkdown } from '../../shared/store/aws/dynamo-items.js';

/** A user's script, run by an action: it writes a paragraph the served page does not have. */
const ACTED = "document.body.insertAdjacentHTML('beforeend', '<p id=\"acted\">Written by an action in the cloud render step.</p>')";
const SETTINGS = { allowPrivateNetwork: true, delayMs: 50, maxRps: 0, renderTimeoutMs: 6000, renderMemoryMb: 64, screenshot: true };

let emu: Emulators;
let synth: Synthesized;
let web: SyntheticWeb;
let crawl: CloudCrawl;
let items: Array<Record<string, unknown>>;
const warcTypes: string[] = [];

before(async () => {
  // As Lambda runs the stage: Chromium then runs in one process, with one browser context.
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'trawl-render-page';
  emu = await startEmulators();
  synth = synthApp({ bundle: false });
  const names = await emu.provision('render');
  web = await startWeb({ articles: 1, blogHosts: 1, apps: 2 });
  crawl = await cloudCrawl(
    emu,
    synth,
    names,
    // The pages that hang a render cost its whole timeout and are the embedded render test's.
    {
      crawl: 'apps',
      seeds: [`${web.origins.apps}/`],
      settings: {
        ...SETTINGS,
        deny: ['/hang', '/never-settles'].map((p) => `${web.origins.apps}${p}`),
        // A plain page with actions of its own: it is rendered for them, and read after them.
        actions: [
          {
            pattern: '*/rendered-only/1',
            actions: [
              { type: 'executeJavascript', script: ACTED },
              { type: 'wait', selector: '#acted' },
            ],
          },
        ],
      },
    },
    { workers: 2, pollMs: 200, timeoutMs: 240_000 },
  );
  items = await tableItems(emu, names.table);
  const listed = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: names.bucket, Prefix: 'warc/' }));
  // The run's WARC objects (compacted at its end), not the CDXJ indexes beside them.
  for (const obj of (listed.Contents ?? []).filter((o) => o.Key!.endsWith('.warc.gz'))) {
    const got = await emu.clients.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: obj.Key! }));
    warcTypes.push(...(await readWarcBytes(Buffer.from(await got.Body!.transformToByteArray()))));
  }
});

after(async () => {
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  await closeRenderers();
  await web?.close();
  synth?.cleanup();
  await emu?.stop();
});

const page = (path: string) => items.find((i) => i.type === 'PAGE' && new URL(String(i.url)).pathname === path);

test('app pages go through Render and are extracted from their DOM; plain pages never are', () => {
  assert.equal(crawl.output.status, 'finished');
  for (const path of ['/spa/1', '/spa/2', '/xhr']) {
    const p = page(path);
    assert.equal(p?.fetcher, 'browser', path);
    assert.equal((p?.render as { outcome: string }).outcome, 'rendered');
    assert.match((p?.render as { reason: string }).reason, /empty-root #root/);
  }
  for (const path of ['/', '/plain']) assert.equal((page(path)?.render as { outcome: string }).outcome, 'not-rendered', path);
  assert.ok(crawl.timings.byFunction.get('render-page')!.length >= 3);
});

test("a crawl's actions run in the cloud's Render step: the page is rendered for them and extracted after them", () => {
  const p = page('/rendered-only/1');
  assert.equal(p?.fetcher, 'browser');
  assert.deepEqual([(p?.render as { outcome: string }).outcome, (p?.render as { reason: string }).reason], ['rendered', 'actions']);
  const x = items.find((i) => i.type === 'EXTRACT' && i.urlId === p?.urlId);
  assert.match(String(itemMarkdown(x)), /Written by an action in the cloud render step/);
  // Its sibling has no actions and stays as served.
  assert.equal((page('/rendered-only/2')?.render as { outcome: string }).outcome, 'not-rendered');
});

test('links that exist only after rendering are crawled', () => {
  for (const path of ['/rendered-only/1', '/rendered-only/2', '/from-xhr']) assert.ok(page(path)?.contentHash, path);
});

test('the metadata address the probe reaches for is blocked and counted; crashes fall back to the served page', () => {
  const probe = page('/probe')?.render as { blocked: Record<string, number> };
  assert.equal(probe.blocked['private-address'], 2);
  const crash = page('/crash')?.render as { outcome: string; error: string };
  assert.equal(crash.outcome, 'failed');
  assert.match(crash.error, /crash/);
});

test('the WARC files in S3 hold the rendered DOM as conversion records and the screenshots as resources', () => {
  assert.ok(warcTypes.filter((t) => t === 'conversion').length >= 3);
  assert.ok(warcTypes.includes('resource'));
  const browserFetches = items.filter((i) => i.type === 'FETCH' && i.fetcher === 'browser');
  assert.ok(browserFetches.length >= 3);
});
