// A first try on a local or intranet site. Without --allow-private-network the CLI and
// the library refuse it at once, before anything is crawled or stored, in one line that names the
// flag and the library option, and exit non-zero; with it the site is crawled. A name that does
// not resolve says so, not "robots.txt does not allow".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { crawl, extract, fetchTarget } from '../../shared/index.js';
import { UsageError } from '../../shared/errors.js';
import { preflight } from '../../shared/fetch/preflight.js';
import { runCli } from '../e2e/cli-process.js';
import { tempDir } from '../../support/helpers.js';

async function withLocalSite(run: (origin: string) => Promise<void>): Promise<void> {
  const server = createServer((req, res) =>
    req.url === '/robots.txt'
      ? res.writeHead(404).end()
      : res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Local</title></head><body><p>A page on this machine.</p></body></html>'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.5', r));
  try {
    await run(`http://127.0.0.5:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

const refusal =
  /^refused http:\/\/127\.0\.0\.5:\d+\/: 127\.0\.0\.5 is a loopback address \(this machine\).*pass --allow-private-network \(library: allowPrivateNetwork: true\)/;

test('the library refuses a loopback seed at once, naming the option, and stores nothing; with the option it crawls', async () => {
  await withLocalSite(async (origin) => {
    const data = tempDir();
    try {
      await assert.rejects(crawl([`${origin}/`], { data: data.dir, env: {} }), (e: unknown) => e instanceof UsageError && refusal.test(e.message));
      assert.equal(existsSync(join(data.dir, 'trawl.db')), false, 'nothing was created');
      await assert.rejects(extract(`${origin}/`), (e: Error) => refusal.test(e.message));
      await assert.rejects(fetchTarget(`${origin}/`, { data: data.dir, env: {} }), (e: Error) => refusal.test(e.message));
      const summary = await crawl([`${origin}/`], { data: data.dir, env: {}, allowPrivateNetwork: true, delayMs: 0 });
      assert.equal(summary.pagesStored, 1);
    } finally {
      data.cleanup();
    }
  });
});

test('the CLI says it in one line and exits non-zero', async () => {
  await withLocalSite(async (origin) => {
    const data = tempDir();
    try {
      const out = await runCli(['crawl', `${origin}/`, '--data', data.dir]);
      assert.notEqual(out.code, 0);
      const lines = out.stderr.trim().split('\n');
      assert.equal(lines.length, 1, out.stderr);
      assert.match(lines[0]!, /refused http:\/\/127\.0\.0\.5:\d+\/: .*--allow-private-network/);
    } finally {
      data.cleanup();
    }
  });
});

test('names that do not resolve, and metadata endpoints, are said as such', async () => {
  const failing = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(preflight('http://nowhere.invalid/', { allowPrivateNetwork: false, resolver: failing }), /does not resolve \(DNS: ENOTFOUND\)/);
  await assert.rejects(preflight('http://169.254.169.254/latest', { allowPrivateNetwork: true }), /metadata or credential endpoint/);
  await preflight('http://127.0.0.1:1/', { allowPrivateNetwork: true });
});

test('a host that refuses the connection is said at once, and a crawl that stored nothing because of it exits 1', async () => {
  // A port that was just free: nothing listens on it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const data = tempDir();
  try {
    const out = await runCli(['crawl', `http://127.0.0.1:${port}/`, '--allow-private-network', '--data', data.dir]);
    assert.equal(out.code, 1, out.stdout + out.stderr);
    // A host that never answered and refuses the connection is parked at once, not backed off for a minute and more.
    assert.match(out.stdout, new RegExp(`parked 127\\.0\\.0\\.1:${port}: it could not be reached \\(said above\\)`));
    assert.match(out.stdout, /skips by reason:[\s\S]*host-parked/);
    // Why is said once as it happens, on stderr (a crawl redirected to a file still shows it), and named at the end.
    assert.equal(out.stdout.split('\nrun 1 ')[0]!.match(/ECONNREFUSED/g), null, 'said once before the summary');
    const lines = out.stderr.trim().split('\n');
    assert.equal(lines.filter((l) => l.includes('ECONNREFUSED')).length, 1, out.stderr);
    assert.match(lines[0]!, new RegExp(`^trawl: cannot reach 127\\.0\\.0\\.1:${port}: the connection was refused: nothing listens there \\(.*ECONNREFUSED`));
    assert.equal(lines.at(-1)!, `trawl: no page stored: 127.0.0.1:${port} could not be reached (said above)`);
  } finally {
    data.cleanup();
  }
});
