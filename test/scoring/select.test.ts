// The homepage selection with the fire-protection profile on the company fixture sites, from their
// homepage links and the heads of the linked pages (what a preview fetches): the expectations were
// written with the sites, before the scorer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadProfile } from '../../shared/scoring/profile.js';
import { scoreLinks, selectPages, type Candidate } from '../../shared/scoring/select.js';
import { CrawlConfigError } from '../../shared/errors.js';
import { COMPANIES, type CompanySite } from '../../support/web/companies.js';

const origin = (c: CompanySite) => `https://${c.name}.example`;

function candidates(c: CompanySite, preview = true): Candidate[] {
  return c.links.map((l) => ({
    url: origin(c) + l.path,
    anchor: l.anchor,
    section: l.section,
    sameHost: true,
    preview: preview ? { title: c.pages[l.path]?.title, description: c.pages[l.path]?.description } : undefined,
  }));
}

const matches = (path: string, pattern: string) => (pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern);

test('the fire-protection profile selects what each fixture site expects, never a service-area page, and the same selection twice', () => {
  const profile = loadProfile('fire-protection');
  for (const c of COMPANIES) {
    const run = () => selectPages(`${origin(c)}/`, scoreLinks(`${origin(c)}/`, candidates(c), profile), profile);
    const { selected, counts, links } = run();
    const paths = selected.map((s) => s.path);
    const why = `${c.name}: ${selected.map((s) => `${s.path} ${s.total} ${s.reason}`).join(' | ')}`;
    assert.ok(selected.length <= profile.cap, why);
    for (const p of c.expected.include) assert.ok(paths.includes(p), `${why} — expected ${p}`);
    for (const p of c.expected.exclude) assert.ok(!paths.some((s) => matches(s, p)), `${why} — must not select ${p}`);
    assert.ok(!paths.some((p) => /service-area/.test(p)), why);
    const servicesOrAbout = selected.filter((s) => s.bucket === 'services' || s.bucket === 'about').length;
    assert.ok(servicesOrAbout >= c.expected.servicesOrAbout, `${why} — ${servicesOrAbout} services or About`);
    assert.ok(selected.filter((s) => s.bucket === 'blog').length <= c.expected.maxBlog, why);
    assert.equal(new Set(selected.map((s) => s.url)).size, selected.length, 'unique pages');
    assert.deepEqual(run().selected, selected, `${c.name}: stable across runs`);
    // Diagnostics: every link has its bucket and scores; exclusions are counted.
    assert.equal(counts.hardExcluded, links.filter((l) => /service-area/.test(l.path) || /service area/i.test(l.anchor)).length);
    assert.ok(links.every((l) => l.intrinsic >= 0 && l.intrinsic <= 10 && l.total >= 0));
  }
});

test('without previews (anchor, URL and context only) the service-area pages still never come through', () => {
  const profile = loadProfile('fire-protection');
  for (const c of COMPANIES) {
    const { selected } = selectPages(`${origin(c)}/`, scoreLinks(`${origin(c)}/`, candidates(c, false), profile), profile);
    assert.ok(!selected.some((s) => /service-area/.test(s.path)), c.name);
    assert.ok(selected.length >= 2, `${c.name}: ${selected.map((s) => s.path).join(' ')}`);
  }
});

test('a bad profile fails naming the file, the field and what to write; an unknown one names the shipped ones', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-profile-'));
  try {
    const write = (name: string, data: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
      return file;
    };
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', weights: { contextual: 0.7, intrinsic: 0.4 } }, /weights: weights.contextual and weights.intrinsic must sum to 1/],
      [{ name: 'x', contextWeights: { title: 1, description: 1, anchor: 0, url: 0 } }, /contextWeights: the field weights sum to 2\.000/],
      [{ name: 'x', buckets: [{ name: 'Services!' }] }, /buckets\.0\.name: a bucket name is lower-case kebab-case/],
      [{ name: 'x', exclude: ['login'] }, /exclude\.0: a path pattern starts with \/ or \*/],
      [{ name: 'x', cap: 0 }, /cap:/],
      [{ name: 'x', colour: 'red' }, /colour|unrecognized/i],
      ['{ not json', /is not valid JSON/],
    ];
    for (const [i, [data, message]] of cases.entries()) {
      const file = write(`p${i}.json`, data);
      assert.throws(
        () => loadProfile(file),
        (e: unknown) => e instanceof CrawlConfigError && e.message.includes(file) && message.test(e.message),
        String(message),
      );
    }
    assert.throws(() => loadProfile('sprinklers'), /unknown profile "sprinklers": use default or fire-protection/);
    assert.throws(() => loadProfile(join(dir, 'missing.json')), /does not exist/);
    assert.equal(loadProfile('default').name, 'default');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
