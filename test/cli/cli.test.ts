import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { resolveSettings, parseCommandLine } from '../../shared/cli/args.js';
import { UsageError } from '../../shared/errors.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';

function trawl(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('flags, environment and defaults resolve in that order', () => {
  const s = resolveSettings({ 'max-pages': '7', deny: ['*/a*'] }, { TRAWL_MAX_PAGES: '3', TRAWL_DELAY_MS: '250', TRAWL_ALLOW_PRIVATE_NETWORK: 'true' });
  assert.equal(s.maxPages, 7);
  assert.equal(s.delayMs, 250);
  assert.equal(s.allowPrivateNetwork, true);
  assert.deepEqual(s.deny, ['*/a*']);
  assert.equal(s.concurrency, 16);
  assert.equal(s.data, './trawl-data');
});

test('a bad flag value names the flag and what it expects', () => {
  assert.throws(
    () => resolveSettings({ 'max-pages': 'lots' }, {}),
    (e: unknown) => e instanceof UsageError && /--max-pages/.test(e.message) && /whole number from 1 to 100000000/.test(e.message),
  );
  assert.throws(() => resolveSettings({ scope: 'planet' }, {}), /one of host, domain/);
  assert.throws(() => resolveSettings({}, { TRAWL_DELAY_MS: '-5' }), /TRAWL_DELAY_MS/);
  assert.throws(() => parseCommandLine(['crawl', '--bogus']), UsageError);
});

test('every duration and rate a user can set has a range, checked up front', () => {
  for (const [flag, value, range] of [
    ['delay-ms', '3000000000', /from 0 to 3600000/],
    ['timeout-ms', '3000000000', /from 1 to 600000/],
    ['max-rps', '1e-9', /0 \(no cap\) or a number from 0.1 to 10000/],
    ['max-crawl-delay-ms', '0', /from 1000 to 3600000/],
    ['max-minutes', '99999999', /from 0 to 10080/],
    ['backoff-max-ms', '1e12', /from 1 to 86400000/],
  ] as const) {
    assert.throws(
      () => resolveSettings({ [flag]: value }, {}),
      (e: unknown) => e instanceof UsageError && e.message.includes(`--${flag}`) && range.test(e.message),
      flag,
    );
  }
  assert.throws(() => resolveSettings({ 'backoff-base-ms': '5000', 'backoff-max-ms': '1000' }, {}), /larger than backoffMaxMs/);
  assert.equal(resolveSettings({ 'max-rps': '0' }, {}).maxRps, 0);
  assert.equal(resolveSettings({ 'max-rps': '0.5' }, {}).maxRps, 0.5);
});

test('a header value with a line break and a deny pattern that is not a regular expression are refused up front', () => {
  assert.throws(() => resolveSettings({ 'user-agent': 'trawl\r\nX-Evil: 1' }, {}), /--user-agent.*no line breaks/);
  assert.throws(
    () => resolveSettings({ deny: ['/(/'] }, {}),
    (e: unknown) => e instanceof UsageError && /--deny/.test(e.message) && /pattern "\/\(\/": not a valid regular expression/.test(e.message),
  );
  assert.deepEqual(resolveSettings({ deny: ['*/login*', '/\\?sort=/'] }, {}).deny, ['*/login*', '/\\?sort=/']);
});

test('an invalid seed exits 2 with a one-line error', () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = trawl(['crawl', 'not-a-url', '--data', dir]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^trawl: seed "not-a-url" is a web search query \(a URL needs http:\/\/ or https:\/\/\), and no web search provider is configured: set TRAWL_SEARXNG_URL .*; or give an absolute http\(s\) URL\n$/,
    );
    assert.equal(trawl(['crawl', 'ftp://x.test/', '--data', dir]).code, 2);
    assert.equal(trawl(['crawl', '--data', dir]).code, 2);
  } finally {
    cleanup();
  }
});

test('a bad flag value and an unknown flag exit 2', () => {
  const r = trawl(['crawl', 'http://a.test/', '--concurrency', '0']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--concurrency/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.equal(trawl(['crawl', 'http://a.test/', '--frobnicate']).code, 2);
  assert.equal(trawl(['launch']).code, 2);
});

test('an unwritable data directory exits 2', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'file'), 'x');
    const r = trawl(['crawl', 'http://a.test/', '--data', join(dir, 'file', 'data')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot write to data directory .*pass --data with a writable directory/);
  } finally {
    cleanup();
  }
});

test('a data dir from another version exits 2 and is left as it was', () => {
  const { dir, cleanup } = tempDir();
  try {
    const db = new Database(join(dir, 'trawl.db'));
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '0');");
    db.close();
    for (const args of [
      ['crawl', 'http://a.test/', '--data', dir],
      ['status', '--data', dir],
    ]) {
      const r = trawl(args);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /another trawl version/);
    }
  } finally {
    cleanup();
  }
});

test('status of an empty directory and resume with nothing to resume exit 2', () => {
  const { dir, cleanup } = tempDir();
  try {
    assert.match(trawl(['status', '--data', dir]).stderr, /no trawl data in/);
    const r = trawl(['crawl', '--resume', '--data', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing to resume/);
  } finally {
    cleanup();
  }
});

test('--help lists every flag with its environment variable', () => {
  const r = trawl(['--help']);
  assert.equal(r.code, 0);
  for (const flag of [
    '--max-pages',
    '--max-depth',
    '--max-pages-per-host',
    '--scope',
    '--allow-domain',
    '--deny',
    '--user-agent',
    '--delay-ms',
    '--concurrency',
    '--allow-private-network',
    '--follow-nofollow',
    '--resume',
    '--json',
  ]) {
    assert.ok(r.stdout.includes(flag), flag);
  }
  assert.match(r.stdout, /TRAWL_DELAY_MS/);
});

test('an extraction with OpenAI and no key is refused before the first request and before the data directory is made', async () => {
  const requests: string[] = [];
  const site = await serve((req, res) => {
    requests.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>t</title><p>words</p>');
  });
  const { dir, cleanup } = tempDir();
  try {
    const schema = join(dir, 's.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { title: { type: 'string' } } }));
    const data = join(dir, 'data');
    const started = Date.now();
    const r = await runCli(
      ['crawl', `${site.origin}/`, '--data', data, '--allow-private-network', '--extract-schema', schema, '--provider', 'openai'],
      20_000,
      {
        OPENAI_API_KEY: '',
        TRAWL_OPENAI_API_KEY: '',
      },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--provider openai calls https:\/\/api\.openai\.com with no key: set TRAWL_OPENAI_API_KEY \(or OPENAI_API_KEY\)/);
    assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
    assert.deepEqual(requests, [], 'the site was not asked for anything');
    assert.equal(existsSync(data), false, 'no data directory was made');
  } finally {
    cleanup();
    await site.close();
  }
});

test('a crawl whose enrichment fails on every page exits 1 and says so on stderr', async () => {
  const topics = ['herons', 'ponds', 'reeds', 'otters', 'lilies', 'frogs', 'newts', 'willows'];
  // Text of its own on each page (near-duplicates are not enriched).
  const words = (n: number) =>
    Array.from(
      { length: 40 },
      (_, i) => `Sentence ${i} of page ${n} tells of ${topics[(n * 3 + i * (n + 1)) % topics.length]} number ${n * 97 + i * 13}.`,
    ).join(' ');
  const site = await serve((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const n = Number(/\d+/.exec(req.url ?? '')?.[0] ?? 0);
    const next = n < 3 ? `<a href="/p/${n + 1}">next page</a>` : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Page ${n}</title><main><h1>Page ${n}</h1><p>${words(n)}</p>${next}</main>`);
  });
  // A model that refuses every call with a client error (not retried).
  const model = await serve((_req, res) => void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"no such model"}}'));
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli(
      [
        'crawl',
        `${site.origin}/`,
        '--data',
        dir,
        '--allow-private-network',
        '--delay-ms',
        '0',
        '--enrich',
        '--provider',
        'openai',
        '--openai-base-url',
        `${model.origin}/v1`,
      ],
      60_000,
      { OPENAI_API_KEY: 'k' },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /pages stored 4/);
    assert.match(r.stderr, /^trawl: enrichment failed on every page it tried \(4 pages\): the failures are listed above; trawl enrich retries them$/m);
  } finally {
    cleanup();
    await Promise.all([site.close(), model.close()]);
  }
});

test('an OpenAI-compatible endpoint that does not answer, or refuses the key, is refused before the first fetch', async () => {
  const requests: string[] = [];
  const site = await serve((req, res) => {
    requests.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>t</title><p>words</p>');
  });
  // A port that was just free: nothing listens on it.
  const gone = await serve((_req, res) => void res.end());
  const goneOrigin = gone.origin;
  await gone.close();
  const refusing = await serve((_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}'));
  const { dir, cleanup } = tempDir();
  try {
    for (const [base, message] of [
      [`${goneOrigin}/v1`, /--openai-base-url http:\/\/127\.0\.0\.1:\d+\/v1 does not answer \(.*ECONNREFUSED.*\): start that endpoint/],
      [`${refusing.origin}/v1`, /http:\/\/127\.0\.0\.1:\d+\/v1 refused the key \(HTTP 401\): set TRAWL_OPENAI_API_KEY/],
    ] as const) {
      const started = Date.now();
      const r = await runCli(
        ['crawl', `${site.origin}/`, '--data', join(dir, 'data'), '--allow-private-network', '--enrich', '--provider', 'openai', '--openai-base-url', base],
        20_000,
        { OPENAI_API_KEY: 'k' },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
    }
    assert.deepEqual(requests, [], 'the site was not asked for anything');
    assert.equal(existsSync(join(dir, 'data')), false, 'no data directory was made');
  } finally {
    cleanup();
    await Promise.all([site.close(), refusing.close()]);
  }
});
