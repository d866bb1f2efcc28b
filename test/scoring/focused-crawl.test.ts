// Focused crawling, the crawl's selection and CSS-selector fields, through the library and the CLI,
// on the company fixture sites served on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../../shared/library/crawl.js';
import type { StoredPage } from '../../shared/pipeline/stages/context.js';
import { openLocalForReading } from '../../shared/store/local/open-local.js';
import { focusedPriority } from '../../shared/scoring/focus.js';
import { urlId } from '../../shared/url/canonical.js';
import { loadProfile } from '../../shared/scoring/profile.js';
import { COMPANIES, companyResponse, type CompanySite } from '../../support/web/companies.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';

const FLAGS = { allowPrivateNetwork: true, delayMs: 0, extractWorkers: 0, env: {} } as const;
const company = (name: string) => COMPANIES.find((c) => c.name === name)!;

async function served(c: CompanySite) {
  const order: string[] = [];
  const server = await serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/robots.txt') order.push(path);
    const r = companyResponse(c, path);
    res.writeHead(r.status, r.headers).end(r.body);
  });
  return { ...server, order };
}

test('the focused priority ranks a link by its words, place and profile: relevant before irrelevant, body before footer, excluded last', () => {
  const p = focusedPriority(loadProfile('fire-protection'));
  const at = (path: string, anchor: string, more: object = {}) => p({ url: `https://a.test${path}`, depth: 1, inlinks: 0, fresh: false, anchor, ...more });
  const relevant = at('/services/sprinkler-inspection', 'Sprinkler inspection and testing', { section: 'body' });
  const irrelevant = at('/kitchen-hoods', 'Kitchen hood cleaning', { section: 'body' });
  assert.ok(relevant > irrelevant, `${relevant} > ${irrelevant}`);
  assert.ok(at('/fire-alarm-testing', 'Fire alarm testing', { section: 'body' }) > at('/fire-alarm-testing', 'Fire alarm testing', { section: 'footer' }));
  assert.ok(at('/x', 'alarm', { context: 'annual fire sprinkler inspection and alarm testing' }) > at('/x', 'alarm', { context: 'our company picnic photos' }));
  // A service-area city page stuffed with the query's words still goes last; the seed still goes first.
  assert.ok(at('/service-area/dover', 'Fire sprinkler inspection Dover', { section: 'body' }) < 0);
  assert.ok(p({ url: 'https://a.test/', depth: 0, inlinks: 0, fresh: false, structural: true }) > relevant);
  // Deterministic.
  assert.equal(relevant, at('/services/sprinkler-inspection', 'Sprinkler inspection and testing', { section: 'body' }));
});

test('a focused crawl fetches the services and About pages first and never spends its budget on the service-area tree; the default crawl does', async () => {
  const c = company('hub');
  const budget = 6;
  const runs: Record<string, string[]> = {};
  for (const profile of ['default', 'fire-protection']) {
    const site = await served(c);
    const { dir, cleanup } = tempDir();
    try {
      await crawl([`${site.origin}/`], { ...FLAGS, data: dir, maxPages: budget, profile, concurrency: 1 });
      runs[profile] = site.order;
    } finally {
      await site.close();
      cleanup();
    }
  }
  const focused = runs['fire-protection']!;
  assert.equal(focused.length, budget, focused.join(' '));
  assert.equal(focused.filter((p) => p.startsWith('/service-area')).length, 0, focused.join(' '));
  assert.ok(focused.filter((p) => /^\/(services|about-us)/.test(p)).length >= 4, focused.join(' '));
  assert.ok(
    runs.default!.some((p) => p.startsWith('/service-area') || /login|privacy|terms|cart/.test(p)),
    runs.default!.join(' '),
  );
});

test('crawl --select ends with each seed homepage selection from the stored graph: in the store, in reports/selection-<run>.json and printed', async () => {
  const c = company('hub');
  const site = await served(c);
  const { dir, cleanup } = tempDir();
  try {
    const result = await runCli(
      [
        'crawl',
        `${site.origin}/`,
        '--data',
        dir,
        '--profile',
        'fire-protection',
        '--select',
        '--max-pages',
        '60',
        '--delay-ms',
        '0',
        '--allow-private-network',
      ],
      120_000,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /selection for http:\/\/127\.0\.0\.1:\d+\/ \(profile fire-protection/);
    const local = openLocalForReading(dir);
    try {
      const [selection] = await local.graph.selections(1);
      assert.ok(selection, 'stored');
      const paths = selection.selected.map((s) => new URL(s.url).pathname.replace(/\/$/, '') || '/');
      for (const p of c.expected.include) assert.ok(paths.includes(p), `${paths.join(' ')} — expected ${p}`);
      assert.ok(!paths.some((p) => p.startsWith('/service-area')));
      assert.ok(selection.previews >= 5, 'heads come from the crawl');
      const report = JSON.parse(readFileSync(join(dir, 'reports', 'selection-1.json'), 'utf8')) as { selections: Array<{ home: string }> };
      assert.equal(report.selections[0]!.home, selection.home);
    } finally {
      await local.close();
    }
  } finally {
    await site.close();
    cleanup();
  }
});

test('fields: the profile extracts phones, addresses and certifications; --field adds its own; they reach the store, export and onPage with $', async () => {
  for (const c of COMPANIES) {
    const site = await served(c);
    const { dir, cleanup } = tempDir();
    try {
      const seen: StoredPage[] = [];
      await crawl([`${site.origin}/`], {
        ...FLAGS,
        data: dir,
        maxPages: 3,
        profile: 'fire-protection',
        field: ['heading=h1', 'links:url=nav a@href[]', 'founded:number=.nothing'],
        onPage: (p) => {
          seen.push(p);
          if (p.page.mime === 'text/html') assert.equal(p.$?.('title').text(), p.page.title, 'the page as cheerio $');
        },
      });
      const home = seen.find((p) => new URL(p.url).pathname === '/')!;
      assert.ok(home, c.name);
      const f = home.fields;
      assert.deepEqual(f.phones, [c.contact.phone], c.name);
      assert.equal(f.address, c.contact.address);
      // Every certification the footer names (the page's own text may name more, e.g. a link to "NICET and NFPA certifications").
      for (const cert of c.contact.certifications) assert.ok((f.certifications as string[]).includes(cert), `${c.name}: ${cert}`);
      if (c.name === 'blog') assert.equal(f.certifications, undefined, 'no match: absent');
      assert.equal(f.heading, c.home.title);
      assert.ok(Array.isArray(f.links) && (f.links as string[]).every((u) => u.startsWith(site.origin)));
      assert.equal('founded' in f, false, 'a selector that matches nothing yields no field');
      assert.equal(home.$?.('address').text(), c.contact.address);
      const local = openLocalForReading(dir);
      try {
        assert.deepEqual((await local.store.getExtract(home.page.urlId))?.fields, f);
        let exported: Record<string, unknown> | undefined;
        for await (const r of local.store.exportRecords()) if (r.type === 'page' && r.urlId === home.page.urlId) exported = r;
        assert.deepEqual(exported?.fields, f);
      } finally {
        await local.close();
      }
    } finally {
      await site.close();
      cleanup();
    }
  }
});

test('a bad selector or profile fails at start-up naming the field and where it is, and leaves no data directory', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const data = join(dir, 'data');
    const bad = await runCli(['crawl', 'https://example.com/', '--data', data, '--field', 'price=.price', '--field', 'x=a[href']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /field "x" \(--field #2\): invalid CSS selector "a\[href": .* \(at character 2\)/);
    assert.equal(existsSync(data), false);
    const file = join(dir, 'mine.json');
    writeFileSync(file, JSON.stringify({ name: 'mine', fields: { phone: { selector: 'p:nope(' } } }));
    const badProfile = await runCli(['crawl', 'https://example.com/', '--data', data, '--profile', file]);
    assert.equal(badProfile.code, 2);
    assert.ok(badProfile.stderr.includes(`field "phone" (profile ${file}, fields.phone): invalid CSS selector`), badProfile.stderr);
    assert.equal(existsSync(data), false);
    writeFileSync(file, JSON.stringify({ name: 'mine', threshold: 2 }));
    const badValue = await runCli(['crawl', 'https://example.com/', '--data', data, '--profile', file]);
    assert.equal(badValue.code, 2);
    assert.ok(badValue.stderr.includes(`profile ${file}: threshold:`), badValue.stderr);
  } finally {
    cleanup();
  }
});

test('--preview reads the heads of the best new links first (politely, archived as previews) and their titles decide what is fetched', async () => {
  const titles = ['Company Picnic', 'Our Trucks', 'Holiday Hours', 'Meet the Dog', 'Fire Sprinkler Inspection and Alarm Testing', 'Parking'];
  const requests: Array<{ path: string; at: number }> = [];
  const server = await serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/robots.txt') requests.push({ path, at: performance.now() });
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /page-6\n');
    const n = /^\/page-(\d)$/.exec(path)?.[1];
    const body =
      path === '/'
        ? `<html><head><title>Home</title></head><body><main>${[1, 2, 3, 4, 5, 6].map((i) => `<p>Item ${i}. <a href="/page-${i}">Learn more</a></p>`).join('')}</main></body></html>`
        : n
          ? `<html><head><title>${titles[Number(n) - 1]}</title></head><body><p>${'text '.repeat(50)}</p></body></html>`
          : undefined;
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  const { dir, cleanup } = tempDir();
  try {
    const order = async (preview: boolean) => {
      requests.length = 0;
      await crawl([`${server.origin}/`], {
        ...FLAGS,
        data: join(dir, String(preview)),
        maxPages: 2,
        profile: 'fire-protection',
        preview,
        delayMs: 30,
        previewsPerPage: 10,
      });
      return requests.map((r) => r.path);
    };
    const plain = await order(false);
    assert.equal(plain.length, 2);
    const previewed = await order(true);
    // Every new link's head, except the one robots.txt disallows, then the relevant page itself.
    assert.deepEqual(previewed.slice(0, -1).sort(), ['/', '/page-1', '/page-2', '/page-3', '/page-4', '/page-5']);
    assert.equal(previewed.at(-1), '/page-5', previewed.join(' '));
    const gaps = requests.slice(1).map((r, i) => r.at - requests[i]!.at);
    assert.ok(Math.min(...gaps) >= 25, `the host delay spaces previews too: ${gaps.map((g) => g.toFixed(0)).join(' ')}`);
    const local = openLocalForReading(join(dir, 'true'));
    try {
      const history = await local.store.fetchHistory(urlId(`${server.origin}/page-1`));
      assert.deepEqual(
        history.map((h) => [h.kind, h.status, h.truncated]),
        [['preview', 200, true]],
        'a preview is an interaction of its own',
      );
    } finally {
      await local.close();
    }
  } finally {
    await server.close();
    cleanup();
  }
});
