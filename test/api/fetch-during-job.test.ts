// One owner of a data directory at a time: MCP's fetch_page during a running crawl job takes its
// turn after the job, leaving the job's lock and the job itself intact; the fetch then archives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { LOCK_FILE } from '../../shared/store/local/data-lock.js';
import { serve, tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';

const WRITE = 'a-write-token-of-some-length';
const PAGES = 8;

test('fetch_page during a running job waits for it: the lock stays the job’s, the job finishes, then the page is archived', { timeout: 120_000 }, async () => {
  // Each page answers after 250 ms: the job holds the directory for a few seconds.
  const site = await serve((req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const n = Number(/\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      const next = n < PAGES ? `<a href="/p${n + 1}">page ${n + 1}</a>` : '';
      res.end(`<html><head><title>Page ${n}</title></head><body><main><p>Slow page ${n} of the site.</p>${next}</main></body></html>`);
    }, 250);
  });
  const data = tempDir();
  const server = await startServer(resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {}), { port: '0', 'write-token': WRITE }, {});
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${WRITE}` };
  const client = new Client({ name: 'fetch-during-job', version: '1.0.0' });
  try {
    const started = await fetch(new URL('/crawls', server.url), {
      method: 'POST',
      headers,
      body: JSON.stringify({ seeds: [`${site.origin}/`], enrich: false }),
    });
    const { id } = (await started.json()) as { id: string };
    const lockFile = join(data.dir, LOCK_FILE);
    for (let i = 0; i < 200 && !existsSync(lockFile); i++) await new Promise((r) => setTimeout(r, 25));
    const jobLock = readFileSync(lockFile, 'utf8');

    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { authorization: `Bearer ${WRITE}` } } }));
    let answered = false;
    const fetched = client.callTool({ name: 'fetch_page', arguments: { url: `${site.origin}/p${PAGES + 5}` } }).finally(() => (answered = true));
    await new Promise((r) => setTimeout(r, 500));
    const job = (await (await fetch(new URL(`/crawls/${id}`, server.url))).json()) as { status: string };
    assert.equal(job.status, 'running', 'the job is still crawling');
    assert.equal(answered, false, 'the fetch waits for the job');
    assert.equal(readFileSync(lockFile, 'utf8'), jobLock, 'the job’s lock is untouched');

    const result = (await fetched) as { isError?: boolean; content: Array<{ text: string }> };
    assert.notEqual(result.isError, true, result.content[0]!.text);
    assert.match(JSON.parse(result.content[0]!.text).title, new RegExp(`Page ${PAGES + 5}`));
    const ended = (await (await fetch(new URL(`/crawls/${id}`, server.url))).json()) as { status: string; summary: { pagesStored: number } };
    assert.equal(ended.status, 'finished');
    assert.equal(ended.summary.pagesStored, PAGES + 1);
    assert.equal(existsSync(lockFile), false, 'both writers gave the directory back');
  } finally {
    await client.close();
    await server.close();
    await site.close();
    data.cleanup();
  }
});
