// The web UI in real headless Chromium over a crawl of the search fixture: type a query, see the
// expected hit, open it, see its inlinks and its neighbourhood graph drawn, open a run and see its
// chart; on a desktop and a phone-width screen. Screenshots go to test-output/ui/ for a person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { startServer } from '../../shared/cli/serve-command.js';
import { loadUiAssets } from '../../shared/api/ui-assets.js';
import { withEnrichedCrawl } from '../search/fixture-site.js';
import { launchUiBrowser } from './ui-browser.js';

const SHOTS = join(process.cwd(), 'test-output', 'ui');

/** How many pixels of a canvas are painted (alpha > 0): a drawn graph or chart is not blank. */
async function paintedPixels(page: Page, selector: string): Promise<number> {
  return page.$$eval(selector, (canvases) =>
    canvases.reduce((sum, c) => {
      const canvas = c as HTMLCanvasElement;
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; data && i < data.length; i += 4) if (data[i]! > 0) n++;
      return sum + n;
    }, 0),
  );
}

/** A page of the given viewport (a phone's is a mobile viewport, set before the page loads anything). */
async function pageOf(browser: Browser, viewport: { width: number; height: number; isMobile?: boolean }): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  return page;
}

/** Waits for `selector`; on a timeout the error says what the page showed and what failed, not only the selector. */
async function shown(page: Page, selector: string, errors: string[]): Promise<void> {
  try {
    await page.waitForSelector(selector);
  } catch (err) {
    const text = await page.evaluate(() => document.body?.innerText ?? '').catch((e: unknown) => `(unreadable: ${String(e)})`);
    throw new Error(`${selector} never appeared; the page showed: ${JSON.stringify(text.slice(0, 600))}; errors: ${JSON.stringify(errors)}`, { cause: err });
  }
}

test('the web UI searches, opens a page with its inlinks and graph, and charts a run, in headless Chromium', { timeout: 180_000 }, async () => {
  assert.ok(loadUiAssets(), 'the web UI is built (npm run build:ui, which npm test runs first)');
  mkdirSync(SHOTS, { recursive: true });
  await withEnrichedCrawl(async (settings) => {
    const server = await startServer(settings, { port: '0' }, {});
    const { browser, close } = await launchUiBrowser();
    try {
      const page = await pageOf(browser, { width: 1200, height: 900 });
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(String(err)));
      // Requests the test itself answers (the large neighbourhood below) are not the page's failures.
      page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
      await page.goto(server.url, { waitUntil: 'networkidle0' });
      // With no query the search page lists the most linked pages.
      await shown(page, 'ol.top li a', errors);

      await page.type('input[name=q]', 'seasoning cast iron');
      await page.click('form.search button');
      await shown(page, 'li.hit h3 a', errors);
      const first = await page.$eval('li.hit h3 a', (a) => ({ text: a.textContent, href: a.getAttribute('href') }));
      assert.match(first.text ?? '', /cast-iron/i);
      assert.match(first.href ?? '', /^#\/page\/[0-9a-f]{32}$/);
      assert.match(await page.$eval('li.hit .why', (e) => e.textContent ?? ''), /terms: seasoning, cast, iron/);
      await page.screenshot({ path: join(SHOTS, 'search.png'), fullPage: true });

      await page.click('li.hit h3 a');
      await shown(page, 'table.inlinks tbody tr', errors);
      const anchors = await page.$$eval('table.inlinks td.anchor', (cells) => cells.map((c) => c.textContent));
      assert.ok(anchors.includes('looking after the pot'), JSON.stringify(anchors));
      await page.waitForFunction(() => Number(document.getElementById('graph')?.dataset.nodes ?? 0) > 2);
      await page.waitForFunction(() => document.querySelectorAll('#graph canvas').length > 0);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok((await paintedPixels(page, '#graph canvas')) > 500, 'the graph is drawn on its canvas');
      await page.screenshot({ path: join(SHOTS, 'page.png'), fullPage: true });

      // A neighbourhood of 200 pages on 5 hosts stays readable: 24 labels drawn (the rest on
      // hover), the pages boxed by host.
      const big = {
        nodes: Array.from({ length: 200 }, (_, i) => ({
          id: i.toString(16).padStart(32, '0'),
          url: `https://host${i % 5}.example/page/${i}`,
          title: `Page ${i}`,
          fetched: true,
        })),
        edges: Array.from({ length: 400 }, (_, i) => ({
          from: (i % 200).toString(16).padStart(32, '0'),
          to: ((i * 7 + 1) % 200).toString(16).padStart(32, '0'),
          anchor: `link ${i}`,
        })),
        truncated: false,
      };
      await page.setRequestInterception(true);
      const answerBig = (request: HTTPRequest) =>
        void (request.url().includes('/graph/neighbourhood/')
          ? request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(big) })
          : request.continue());
      page.on('request', answerBig);
      await page.select('select[aria-label="graph depth"]', '2');
      await page.waitForFunction(() => document.getElementById('graph')?.dataset.nodes === '200');
      assert.deepEqual(await page.$eval('#graph', (g) => [(g as HTMLElement).dataset.labels, (g as HTMLElement).dataset.hosts]), ['24', '5']);
      page.off('request', answerBig);
      await page.setRequestInterception(false);

      await page.goto(`${server.url}#/runs`, { waitUntil: 'networkidle0' });
      await shown(page, 'table.runs a', errors);
      await page.click('table.runs a');
      await shown(page, '#chart canvas', errors);
      assert.ok(Number(await page.$eval('#chart', (c) => (c as HTMLElement).dataset.points)) >= 1);
      assert.ok((await paintedPixels(page, '#chart canvas')) > 200, 'the chart is drawn');
      assert.match(await page.$eval('section.bars', (s) => s.textContent ?? ''), /200/);
      await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });

      // A phone-width screen (a page of its own: a mobile viewport is set when the page is made): nothing overflows sideways.
      const phone = await pageOf(browser, { width: 390, height: 844, isMobile: true });
      phone.on('pageerror', (err) => errors.push(String(err)));
      await phone.goto(`${server.url}#/?q=bread`, { waitUntil: 'networkidle0' });
      await shown(phone, 'li.hit', errors);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `the search page is ${overflow}px wider than a phone`);
      await phone.screenshot({ path: join(SHOTS, 'search-phone.png'), fullPage: true });
      assert.deepEqual(errors, [], 'no script error and no failed request');
    } finally {
      await close();
      await server.close();
    }
  });
});

test('the web UI shows under POSIX, C.UTF-8 and a non-English locale, and with --token asks for the token and works', { timeout: 180_000 }, async () => {
  await withEnrichedCrawl(async (settings) => {
    const token = 'a-long-enough-secret-token';
    const server = await startServer(settings, { port: '0', token }, {});
    try {
      for (const lang of ['C.UTF-8', 'POSIX', 'de_DE.UTF-8']) {
        const { browser, close } = await launchUiBrowser({ LANG: lang, LC_ALL: lang, LANGUAGE: '' });
        try {
          const page = await browser.newPage();
          const errors: string[] = [];
          const asked: string[] = [];
          page.on('pageerror', (err) => errors.push(String(err)));
          // A cold start: no token stored; the page loads, the API answers 401, the UI asks.
          page.on('dialog', (dialog) => {
            asked.push(dialog.message());
            void dialog.accept(token);
          });
          await page.goto(server.url, { waitUntil: 'networkidle0' });
          await shown(page, 'ol.top li a', errors);
          assert.equal(asked.length, 1, `${lang}: the UI asked for the token once`);
          await page.goto(`${server.url}#/runs`, { waitUntil: 'networkidle0' });
          await shown(page, 'table.runs a', errors);
          await page.click('table.runs a');
          await shown(page, '#chart canvas', errors);
          assert.deepEqual(errors, [], `${lang}: no script error`);
        } finally {
          await close();
        }
      }
    } finally {
      await server.close();
    }
  });
});
