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
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';
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

/** How many pairs of the drawn labels' boxes (`[x1, y1, x2, y2]` on screen) overlap. */
function labelOverlaps(json: string): number {
  const boxes = JSON.parse(json) as number[][];
  let n = 0;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i]!, boxes[j]!];
      if (a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!) n++;
    }
  return n;
}

/** A neighbourhood of `size` pages on 5 hosts: the centre links to most in four sections, some link to it, and they link among themselves. */
function neighbourhoodOf(size: number) {
  const id = (i: number) => i.toString(16).padStart(32, '0');
  const sections = ['body', 'nav', 'footer', 'sidebar'];
  const nodes = Array.from({ length: size }, (_, i) => ({
    id: id(i),
    url: `https://host${i % 5}.example/guides/page-${i}`,
    title: i === 0 ? 'The page in the middle of it all' : `Guide ${i}: a title of some length`,
    fetched: true,
    depth: i === 0 ? 0 : 1,
  }));
  const edges = [
    ...nodes
      .slice(1)
      .map((n, i) =>
        i % 5 === 4 ? { from: n.id, to: id(0), anchor: `back ${i}`, section: 'body' } : { from: id(0), to: n.id, anchor: `to ${i}`, section: sections[i % 4] },
      ),
    ...nodes.slice(1).map((n, i) => ({ from: n.id, to: id(((i * 7) % (size - 1)) + 1), anchor: `see ${i}`, section: 'body' })),
  ].filter((e) => e.from !== e.to);
  return { centre: id(0), nodes, edges, truncated: false };
}

/** Pixels of a canvas painted in about `rgb`. */
async function colouredPixels(page: Page, selector: string, rgb: number[]): Promise<number> {
  return page.$$eval(
    selector,
    (canvases, [r, g, b]) =>
      canvases.reduce((sum, c) => {
        const canvas = c as HTMLCanvasElement;
        const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; data && i < data.length; i += 4)
          if (data[i + 3]! > 200 && Math.abs(data[i]! - r!) < 30 && Math.abs(data[i + 1]! - g!) < 30 && Math.abs(data[i + 2]! - b!) < 30) n++;
        return sum + n;
      }, 0),
    rgb,
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

      assert.equal(await page.$eval('#graph', (g) => (g as HTMLElement).dataset.centreLabelled), '1', "the centre's label is drawn");
      assert.equal(labelOverlaps(await page.$eval('#graph', (g) => (g as HTMLElement).dataset.labelBoxes ?? '[]')), 0, 'no label covers another');

      // Neighbourhoods of 10, 30 and 100 pages, the centre's links in four sections and pages
      // linking in: the centre labelled, the neighbours boxed by section, no label over another.
      await page.setRequestInterception(true);
      let answer: object = {};
      const answerGraph = (request: HTTPRequest) =>
        void (request.url().includes('/graph/neighbourhood/')
          ? request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) })
          : request.continue());
      page.on('request', answerGraph);
      const depthPick = 'select[aria-label="graph depth"]';
      for (const size of [10, 30, 100]) {
        answer = neighbourhoodOf(size);
        await page.select(depthPick, (await page.$eval(depthPick, (s) => (s as HTMLSelectElement).value)) === '1' ? '2' : '1');
        await page.waitForFunction((n) => document.getElementById('graph')?.dataset.nodes === String(n), {}, size);
        const data = await page.$eval('#graph', (g) => ({ ...(g as HTMLElement).dataset }));
        assert.equal(data.centreLabelled, '1', `${size} nodes: the centre is labelled`);
        assert.deepEqual(data.groups?.split('|').sort(), ['footer', 'in the text', 'linking here', 'navigation', 'sidebar'], `${size} nodes: boxed by section`);
        assert.equal(labelOverlaps(data.labelBoxes ?? '[]'), 0, `${size} nodes: no label covers another`);
        assert.ok(Number(data.labels) >= Math.min(size, 8), `${size} nodes: ${data.labels} labels drawn`);
        await (await page.$('#graph'))!.screenshot({ path: join(SHOTS, `graph-${size}.png`) });
      }
      // A neighbourhood whose links carry no section, across 5 hosts: boxed by host.
      answer = { ...neighbourhoodOf(200), edges: neighbourhoodOf(200).edges.map(({ section: _s, ...e }) => e) };
      await page.select(depthPick, (await page.$eval(depthPick, (s) => (s as HTMLSelectElement).value)) === '1' ? '2' : '1');
      await page.waitForFunction(() => document.getElementById('graph')?.dataset.nodes === '200');
      assert.equal((await page.$eval('#graph', (g) => (g as HTMLElement).dataset.groups))?.split('|').length, 5);
      page.off('request', answerGraph);
      await page.setRequestInterception(false);

      await page.goto(`${server.url}#/runs`, { waitUntil: 'networkidle0' });
      await shown(page, 'table.runs a', errors);
      await page.click('table.runs a');
      await shown(page, '#chart canvas', errors);
      assert.ok(Number(await page.$eval('#chart', (c) => (c as HTMLElement).dataset.points)) >= 1);
      assert.deepEqual((await page.$eval('#chart', (c) => (c as HTMLElement).dataset.series))?.split('|'), [
        'pages/s (2xx)',
        'unchanged/s (304)',
        'requests/s',
      ]);
      assert.ok((await paintedPixels(page, '#chart canvas')) > 200, 'the chart is drawn');
      assert.match(await page.$eval('section.bars', (s) => s.textContent ?? ''), /200/);
      await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });
      // A recrawl whose pages answered 304: the chart draws them (its orange line), not an empty 2xx line.
      const runPath = new URL(page.url()).hash.replace('#', '');
      const run = (await (await fetch(new URL(runPath.replace('/run/', '/runs/'), server.url))).json()) as { series: Array<Record<string, number>> };
      const recrawl = { ...run, series: run.series.map((p) => ({ ...p, ok: 0, pagesPerSecond: 0, unchanged: Math.ceil(p.requests! / 2) })) };
      await page.setRequestInterception(true);
      const answerRun = (request: HTTPRequest) =>
        void (/\/runs\/\d+$/.test(new URL(request.url()).pathname)
          ? request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(recrawl) })
          : request.continue());
      page.on('request', answerRun);
      await page.reload({ waitUntil: 'networkidle0' });
      await shown(page, '#chart canvas', errors);
      assert.equal(await page.$eval('#chart', (c) => (c as HTMLElement).dataset.unchanged), String(recrawl.series.reduce((n, p) => n + p.unchanged, 0)));
      assert.ok((await colouredPixels(page, '#chart canvas', [232, 89, 12])) > 20, 'the 304s are drawn');
      await page.screenshot({ path: join(SHOTS, 'run-304.png'), fullPage: true });
      page.off('request', answerRun);
      await page.setRequestInterception(false);

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
          const ticks = (await page.$eval('#chart', (c) => (c as HTMLElement).dataset.ticks)) ?? '';
          // The time axis in the browser's locale: German has a 24-hour clock and day before month.
          if (lang.startsWith('de')) assert.match(ticks, /^\d{2}:\d{2}(:\d{2})?\n\d{1,2}\. \S+\|\d{2}:\d{2}/, `${lang}: ${ticks}`);
          else assert.match(ticks, /^\d{2}:\d{2}(:\d{2})? [AP]M\n[A-Z][a-z]{2} \d{1,2}\|\d{2}:\d{2}/, `${lang}: ${ticks}`);
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
