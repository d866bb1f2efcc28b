// The homepage pass over HTTP: each company fixture site served on loopback, fetched politely
// (robots.txt, the host delay, one request at a time), its best candidates' heads previewed (and
// only their heads), then the selection the fixture expects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { select } from '../../shared/library/select.js';
import { COMPANIES, companyResponse, type CompanySite } from '../../support/web/companies.js';
import { serve } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';

async function served(c: CompanySite, robots?: string) {
  const requests: Array<{ path: string; at: number }> = [];
  const server = await serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ path, at: performance.now() });
    if (robots !== undefined && path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    const r = companyResponse(c, path);
    res.writeHead(r.status, r.headers).end(r.body);
  });
  return { ...server, requests };
}

test('the homepage pass selects what each site expects, previews only candidates worth it, and never asks for a service-area page', async () => {
  for (const c of COMPANIES) {
    const site = await served(c);
    try {
      const result = await select(`${site.origin}/`, { profile: 'fire-protection', allowPrivateNetwork: true, delayMs: 0 });
      const paths = result.selected.map((s) => s.path);
      for (const p of c.expected.include) assert.ok(paths.includes(p), `${c.name}: ${paths.join(' ')} — expected ${p}`);
      assert.ok(!paths.some((p) => /service-area/.test(p)));
      assert.ok(result.previews.fetched >= 3 && result.previews.fetched <= 20, `${c.name}: ${JSON.stringify(result.previews)}`);
      const asked = site.requests.map((r) => r.path);
      assert.equal(asked[0], '/robots.txt');
      assert.equal(asked[1], '/');
      assert.ok(!asked.some((p) => /service-area|login|privacy|terms|cart/.test(p)), `${c.name} asked for ${asked.join(' ')}`);
      assert.equal(new Set(asked).size, asked.length, 'nothing requested twice');
      assert.equal(result.counts.selected, result.selected.length);
    } finally {
      await site.close();
    }
  }
});

test('politeness: a page robots.txt disallows is not previewed, the Crawl-delay spaces every request, and a disallowed homepage is an error', async () => {
  const hub = COMPANIES[0]!;
  const site = await served(hub, 'User-agent: *\nDisallow: /about-us\nCrawl-delay: 0.1\n');
  try {
    const result = await select(`${site.origin}/`, { profile: 'fire-protection', allowPrivateNetwork: true, delayMs: 0, previews: 5 });
    assert.ok(!site.requests.some((r) => r.path === '/about-us'));
    assert.ok(result.previews.refused >= 1, JSON.stringify(result.previews));
    assert.ok(result.previews.fetched + result.previews.refused + result.previews.failed <= 5);
    const gaps = site.requests.slice(1).map((r, i) => r.at - site.requests[i]!.at);
    assert.ok(
      gaps.slice(1).every((g) => g >= 95),
      `gaps ${gaps.map((g) => g.toFixed(0)).join(' ')}`,
    );
  } finally {
    await site.close();
  }
  const closed = await served(hub, 'User-agent: *\nDisallow: /\n');
  try {
    await assert.rejects(select(`${closed.origin}/`, { allowPrivateNetwork: true, delayMs: 0 }), /robots\.txt of .* does not allow/);
    assert.deepEqual(
      closed.requests.map((r) => r.path),
      ['/robots.txt'],
    );
  } finally {
    await closed.close();
  }
});

test('trawl select prints the selection with reasons, every link with its diagnostics under --json, and refuses bad flags', async () => {
  const site = await served(COMPANIES[0]!);
  const flags = ['--allow-private-network', '--delay-ms', '0'];
  try {
    const text = await runCli(['select', `${site.origin}/`, '--profile', 'fire-protection', ...flags]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /selection for http:\/\/127\.0\.0\.1:\d+\/ \(profile fire-protection, query "fire protection sprinkler/);
    assert.match(text.stdout, /services\+services-hub — total [\d.]+ \(contextual [\d.]+, intrinsic [\d.]+, boost [\d.]+\), anchor "Services"/);
    assert.match(text.stdout, /41 hard-excluded/);
    const lines = (await runCli(['select', `${site.origin}/`, '--profile', 'fire-protection', '--cap', '3', '--json', ...flags])).stdout
      .trim()
      .split('\n')
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON lines, checked by the assertions
      .map((l) => JSON.parse(l) as Record<string, any>);
    const selection = lines.find((l) => l.type === 'selection')!;
    assert.equal(selection.selected.length, 3);
    const links = lines.filter((l) => l.type === 'link');
    assert.ok(links.length >= 50);
    for (const key of ['bucket', 'intrinsic_score', 'contextual_score', 'total_score', 'matched_patterns', 'selection_reason'])
      assert.ok(key in links[0]!, key);
    assert.ok(links.filter((l) => /service-area/.test(l.url)).every((l) => l.excluded === 'hard-excluded' && !l.selected));
    const bad = await runCli(['select', `${site.origin}/`, '--cap', '0', ...flags]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--cap: expected a whole number from 1 to 50/);
    const unknown = await runCli(['select', `${site.origin}/`, '--profile', 'plumbing', ...flags]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown profile "plumbing": use default or fire-protection, or the path of a profile JSON file/);
  } finally {
    await site.close();
  }
});
