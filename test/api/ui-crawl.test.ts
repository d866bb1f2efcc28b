// The web UI's "New crawl" form in headless Chromium (the machine's own locale), on a
// server with a read token and a write token: the form asks for the write token once, starts the
// crawl, shows its progress live from the Server-Sent Events, and links the finished run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { loadUiAssets } from '../../shared/api/ui-assets.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { launchUiBrowser } from './ui-browser.js';

test('the New crawl form starts a crawl with the write token and follows it live to its run', { timeout: 180_000 }, async () => {
  assert.ok(loadUiAssets(), 'the web UI is built (npm run build:ui, which npm test runs first)');
  const site = await startFixtureSite();
  const data = tempDir();
  const token = 'a-read-token-of-some-length';
  const writeToken = 'a-write-token-of-some-length';
  const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {});
  const server = await startServer(settings, { port: '0', token, 'write-token': writeToken }, {});
  const { browser, close } = await launchUiBrowser();
  try {
    // One bearer header: the write token reads too; the read token cannot write.
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    assert.equal((await fetch(new URL('/runs', server.url), { headers: auth(writeToken) })).status, 200);
    const refused = await fetch(new URL('/crawls', server.url), {
      method: 'POST',
      headers: { ...auth(token), 'content-type': 'application/json' },
      body: JSON.stringify({ seeds: [`${site.origin}/`] }),
    });
    assert.equal(refused.status, 401);

    const page = await browser.newPage();
    const errors: string[] = [];
    const prompts: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    page.on('dialog', (d) => {
      prompts.push(d.message());
      void d.accept(writeToken);
    });
    await page.goto(`${server.url}#/crawl`, { waitUntil: 'networkidle0' });
    await page.type('textarea[name=seeds]', `${site.origin}/`);
    await page.$eval('input[name=maxPages]', (e) => ((e as HTMLInputElement).value = '25'));
    await page.click('form.new-crawl button[type=submit]');
    // No wall-clock budget of its own (a loaded machine crawls slower): the test's timeout bounds it.
    await page.waitForSelector('[data-state="crawl.finished"]', { timeout: 0 });
    assert.equal(prompts.length, 1, 'asked for the write token once');
    assert.match(prompts[0]!, /write token/);
    const stored = Number(await page.$eval('dd[data-field=pages-stored]', (e) => e.textContent));
    assert.ok(stored > 5, `pages stored: ${stored}`);
    const link = await page.$eval('[data-state="crawl.finished"] a', (a) => a.getAttribute('href'));
    assert.equal(link, '#/run/1');
    mkdirSync(join(process.cwd(), 'test-output', 'ui'), { recursive: true });
    await page.screenshot({ path: join(process.cwd(), 'test-output', 'ui', 'new-crawl.png'), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await close();
    await server.close();
    await site.close();
    data.cleanup();
  }
});
