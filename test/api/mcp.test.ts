// `trawl mcp` over stdio, driven by the official SDK's client as an agent would: the
// tools are listed, a crawl of a loopback site is started (the server allows private addresses)
// and followed to its end, then a search, a page and its links are read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';
import { tempDir } from '../../support/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results, checked below
const body = (r: unknown) => JSON.parse((r as { content: Array<{ text: string }> }).content[0]!.text) as Json;

test('an agent crawls, follows, searches and reads through trawl mcp over stdio', { timeout: 180_000 }, async () => {
  const site = await startFixtureSite();
  const data = tempDir();
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'shared/cli/main.ts', 'mcp', '--data', data.dir, '--allow-private-network', '--delay-ms', '0'],
    stderr: 'pipe',
  });
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, ['crawl', 'crawl_status', 'fetch_page', 'get_page', 'highlights', 'links', 'search']);
    const started = body(await client.callTool({ name: 'crawl', arguments: { seeds: [`${site.origin}/`], maxPages: 40 } }));
    assert.match(started.id, /^[0-9a-f-]{36}$/);
    let status: Json = {};
    for (let i = 0; i < 600 && status.status !== 'finished' && status.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = body(await client.callTool({ name: 'crawl_status', arguments: { id: started.id } }));
    }
    assert.equal(status.status, 'finished', JSON.stringify(status));
    assert.ok(status.summary.pagesStored > 5);
    const found = body(await client.callTool({ name: 'search', arguments: { query: 'seasoning cast iron', limit: 3 } }));
    assert.match(found.hits[0].url, /cast-iron-care$/);
    assert.ok(found.hits[0].summary && found.hits[0].tags.length > 0 && found.hits[0].why);
    const page = body(await client.callTool({ name: 'get_page', arguments: { url: found.hits[0].url } }));
    assert.match(page.markdown, /cast iron/i);
    // Highlights: the page's own words, each citing the archived record and its span in the markdown.
    const lit = body(await client.callTool({ name: 'highlights', arguments: { url: found.hits[0].url, query: 'seasoning cast iron' } }));
    assert.ok(lit.citations.length >= 1, JSON.stringify(lit));
    for (const c of lit.citations) {
      assert.equal(page.markdown.slice(c.start, c.end), c.text);
      assert.ok(c.warcFile && c.warcOffset >= 0 && c.warcLength > 0, JSON.stringify(c));
    }
    assert.ok(lit.highlights.includes(lit.citations[0].text));
    const links = body(await client.callTool({ name: 'links', arguments: { url: found.hits[0].url, direction: 'in' } }));
    assert.ok(
      links.inlinks.some((l: Json) => l.anchor === 'looking after the pot'),
      JSON.stringify(links.inlinks),
    );
    const resource = await client.readResource({ uri: `trawl://page/${page.id}` });
    assert.match(String((resource.contents[0] as { text?: string }).text), /cast iron/i);
    const missing = await client.callTool({ name: 'crawl_status', arguments: { id: 'nope' } });
    assert.equal(missing.isError, true);
  } finally {
    await client.close();
    await site.close();
    data.cleanup();
  }
});

test('without --allow-private-network the crawl tool refuses a loopback seed, naming the flag', { timeout: 60_000 }, async () => {
  const data = tempDir();
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'shared/cli/main.ts', 'mcp', '--data', data.dir],
    stderr: 'pipe',
  });
  try {
    await client.connect(transport);
    const refused = await client.callTool({ name: 'crawl', arguments: { seeds: ['http://127.0.0.1:9/'] } });
    assert.equal(refused.isError, true);
    assert.match((refused as { content: Array<{ text: string }> }).content[0]!.text, /--allow-private-network/);
  } finally {
    await client.close();
    data.cleanup();
  }
});

test('the same tools over Streamable HTTP at /mcp on trawl serve, with the token; without it the call is refused', { timeout: 180_000 }, async () => {
  const { startServer } = await import('../../shared/cli/serve-command.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { withEnrichedCrawl } = await import('../../support/search/fixture-site.js');
  await withEnrichedCrawl(async (settings) => {
    const token = 'a-long-enough-secret-token';
    const server = await startServer(settings, { port: '0', token }, {});
    try {
      const denied = await fetch(new URL('/mcp', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(denied.status, 401);
      const client = new Client({ name: 'http-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        assert.ok((await client.listTools()).tools.some((t) => t.name === 'search'));
        const found = body(await client.callTool({ name: 'search', arguments: { query: 'seasoning cast iron', limit: 1 } }));
        assert.match(found.hits[0].url, /cast-iron-care$/);
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });
});
