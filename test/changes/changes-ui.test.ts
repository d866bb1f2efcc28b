// The web UI's "What changed" view in headless Chromium (the machine's own locale): a
// run's changes by kind, a filter, and the word diff of a changed page one click away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../../shared/index.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { loadUiAssets } from '../../shared/api/ui-assets.js';
import { tempDir } from '../../support/helpers.js';
import { launchUiBrowser } from '../api/ui-browser.js';
import { changingSite } from './site.js';

test('the UI lists a run’s changes by kind and shows a changed page’s word diff', { timeout: 120_000 }, async () => {
  assert.ok(loadUiAssets(), 'the web UI is built (npm run build:ui, which npm test runs first)');
  const site = await changingSite();
  const data = tempDir();
  const options = { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never' as const, env: {} };
  await crawl([`${site.origin}/`], options);
  site.change();
  await crawl([`${site.origin}/`], options);
  await site.close();
  const server = await startServer(resolveSettings({ data: data.dir }, {}), { port: '0' }, {});
  const { browser, close } = await launchUiBrowser();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(`${server.url}#/changes`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('table.changes tbody tr');
    assert.match(await page.$eval('h1', (e) => e.textContent ?? ''), /What changed — run #2 against run #1/);
    const rows = await page.$$eval('table.changes tbody tr', (trs) =>
      trs.map((tr) => `${tr.getAttribute('data-kind')} ${new URL(tr.querySelector('.url')!.textContent!).pathname}`),
    );
    assert.deepEqual(rows.sort(), ['changed /', 'changed /a', 'newly-linked /d', 'orphaned /c', 'rank-shift /c', 'rank-shift /d', 'removed /b']);

    const edited = await page.$$('tr[data-kind=changed]');
    let opened = false;
    for (const row of edited) {
      if (!(await row.$eval('.url', (e) => e.textContent!.endsWith('/a')))) continue;
      await (await row.$('button.show-diff'))!.click();
      await row.waitForSelector('.diff ins');
      const diff = await row.$eval('.diff', (e) => ({
        ins: [...e.querySelectorAll('ins')].map((x) => x.textContent),
        del: [...e.querySelectorAll('del')].map((x) => x.textContent),
      }));
      assert.ok(
        diff.ins.some((t) => /Currents run fastest/.test(t ?? '')),
        JSON.stringify(diff),
      );
      assert.ok(
        diff.del.some((t) => /near the new/.test(t ?? '')),
        JSON.stringify(diff),
      );
      opened = true;
    }
    assert.ok(opened, 'the changed /a row has a diff');
    mkdirSync(join(process.cwd(), 'test-output', 'ui'), { recursive: true });
    await page.screenshot({ path: join(process.cwd(), 'test-output', 'ui', 'changes.png'), fullPage: true });

    await page.goto(`${server.url}#/changes?run=2&kind=unchanged`, { waitUntil: 'networkidle0' });
    await page.waitForFunction(() => document.body.dataset.ready?.includes('kind=unchanged'));
    const unchanged = await page.$$eval('table.changes tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-kind')));
    assert.deepEqual(unchanged, ['unchanged', 'unchanged', 'unchanged']);
    assert.deepEqual(errors, []);
  } finally {
    await close();
    await server.close();
    data.cleanup();
  }
});
