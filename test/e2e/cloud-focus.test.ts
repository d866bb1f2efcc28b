// A focused crawl in the cloud (crawls.json's profile, query and select) through the synthesized
// state machines and the emulators: SQS has no priorities, so only links whose score reaches the
// profile's threshold are sent (the rest are recorded, skipped as below-threshold); the fields reach
// the EXTRACT items; the run ends with the selection in the table and in reports/selection-<run>.json.
// What it keeps is compared with the embedded best-first crawl of the same site and budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { crawl as embeddedCrawl } from '../../shared/library/crawl.js';
import { COMPANIES, companyResponse } from '../../support/web/companies.js';
import { serve, tempDir } from '../../support/helpers.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { synthApp, type Synthesized } from '../../support/synth.js';

const SITE = COMPANIES.find((c) => c.name === 'hub')!;
const BUDGET = 12;

let emu: Emulators;
let synth: Synthesized;
let names: Awaited<ReturnType<Emulators['provision']>>;
let site: Awaited<ReturnType<typeof serve>>;
let run: CloudCrawl;
let items: Array<Record<string, unknown>>;
const cloudPaths: string[] = [];
const embeddedPaths: string[] = [];

before(async () => {
  emu = await startEmulators();
  synth = synthApp({ bundle: false });
  names = await emu.provision('focus');
  let recording = cloudPaths;
  site = await serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/robots.txt') recording.push(path);
    const r = companyResponse(SITE, path);
    res.writeHead(r.status, r.headers).end(r.body);
  });
  const settings = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0, maxPages: BUDGET };
  run = await cloudCrawl(
    emu,
    synth,
    names,
    { crawl: 'focus', seeds: [`${site.origin}/`], settings, profile: 'fire-protection', select: { cap: 4 } },
    { workers: 2, pollMs: 200, timeoutMs: 180_000 },
  );
  items = await tableItems(emu, names.table);
  recording = embeddedPaths;
  const data = tempDir();
  try {
    await embeddedCrawl([`${site.origin}/`], { ...settings, data: data.dir, profile: 'fire-protection', concurrency: 1, extractWorkers: 0, env: {} });
  } finally {
    data.cleanup();
  }
});

after(async () => {
  await site?.close();
  synth?.cleanup();
  await emu?.stop();
});

test('only links at or above the threshold are sent: no service-area or legal page is fetched, and they are recorded as skipped', () => {
  assert.equal(run.output.status, 'finished');
  assert.ok(cloudPaths.length > 3, cloudPaths.join(' '));
  assert.equal(cloudPaths.filter((p) => /^\/(service-area|login|privacy|terms|cart)/.test(p)).length, 0, cloudPaths.join(' '));
  const skipped = items.filter((i) => i.type === 'URL' && i.state === 'skipped' && i.reason === 'below-threshold');
  assert.ok(skipped.length >= 40, `${skipped.length} below-threshold`);
  assert.ok(skipped.some((i) => String(i.url).includes('/service-area/')));
  for (const p of ['/services', '/services/sprinkler-inspection', '/about-us']) assert.ok(cloudPaths.includes(p), `${p} in ${cloudPaths.join(' ')}`);
});

test('compared with the embedded best-first crawl of the same budget, the cloud keeps every relevant page it fetched', () => {
  const relevant = (p: string) => /^\/(services|about-us|certifications)/.test(p);
  const embeddedRelevant = embeddedPaths.filter(relevant);
  const kept = embeddedRelevant.filter((p) => cloudPaths.includes(p));
  assert.equal(kept.length, embeddedRelevant.length, `embedded ${embeddedPaths.join(' ')} / cloud ${cloudPaths.join(' ')}`);
});

test('the fields reach the EXTRACT items, and the run ends with the selection in the table and in reports/selection-1.json', async () => {
  const home = items.find(
    (i) => i.type === 'EXTRACT' && new URL(String((items.find((p) => p.type === 'PAGE' && p.urlId === i.urlId) ?? {}).url ?? 'http://x/y')).pathname === '/',
  );
  assert.ok(home, 'the homepage extract');
  const fields = home.fields as Record<string, unknown>;
  assert.deepEqual(fields.phones, [SITE.contact.phone]);
  assert.equal(fields.address, SITE.contact.address);
  const selection = items.find((i) => i.type === 'SELECTION');
  assert.ok(selection, 'a SELECTION item');
  const paths = (selection.selected as Array<{ url: string }>).map((s) => new URL(s.url).pathname.replace(/\/$/, '') || '/');
  for (const p of SITE.expected.include) assert.ok(paths.includes(p), `${paths.join(' ')} — expected ${p}`);
  const got = await emu.clients.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/selection-1.json' }));
  const report = JSON.parse(await got.Body!.transformToString()) as { selections: Array<{ selected: unknown[] }> };
  assert.deepEqual(report.selections[0]!.selected, selection.selected);
});
