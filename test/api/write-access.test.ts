// One write decision for every route and every MCP tool: each route that writes, and each tool
// whose annotations do not say it only reads, refuses the read token and no token alike; the write
// token passes the same decision everywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, type RunningServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';

const READ = 'a-read-token-of-some-length';
const WRITE = 'a-write-token-of-some-length';
const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function mcpClient(server: RunningServer, token?: string): Promise<Client> {
  const client = new Client({ name: 'write-access-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: auth(token) } }));
  return client;
}

/** Arguments each tool's schema accepts (the refusal must come from access, not validation). */
const ARGS: Record<string, Record<string, unknown>> = {
  crawl: { seeds: ['http://127.0.0.1:9/'] },
  crawl_status: { id: 'nope' },
  search: { query: 'bread' },
  get_page: { url: 'http://127.0.0.1:9/' },
  links: { url: 'http://127.0.0.1:9/' },
  fetch_page: { url: 'http://127.0.0.1:9/' },
};

test('every writing route and every writing MCP tool refuses the read token; the write token passes', { timeout: 60_000 }, async () => {
  const data = tempDir();
  const settings = resolveSettings(testFlags(data.dir), {});
  const server = await startServer(settings, { port: '0', token: READ, 'write-token': WRITE }, {});
  try {
    const writers = server.routes.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    assert.ok(writers.some((r) => r.path === '/crawls') && writers.some((r) => r.method === 'DELETE'), JSON.stringify(writers));
    for (const { method, path } of writers) {
      const url = new URL(path.replace(/:[a-z]+/gi, '00000000-0000-4000-8000-000000000000'), server.url);
      for (const token of [undefined, READ]) {
        const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...auth(token) }, body: '{"seeds":["http://127.0.0.1:9/"]}' });
        assert.equal(res.status, 401, `${method} ${path} with ${token ? 'the read token' : 'no token'}`);
      }
      const allowed = await fetch(url, { method, headers: { 'content-type': 'application/json', ...auth(WRITE) }, body: '{"seeds":["file:///etc/passwd"]}' });
      assert.notEqual(allowed.status, 401, `${method} ${path} with the write token`);
      assert.notEqual(allowed.status, 403, `${method} ${path} with the write token`);
    }

    const reader = await mcpClient(server, READ);
    try {
      const tools = (await reader.listTools()).tools;
      const writing = tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
      assert.deepEqual(writing.sort(), ['crawl', 'fetch_page'], 'the tools that start or archive something say so');
      for (const tool of tools) {
        const result = (await reader.callTool({ name: tool.name, arguments: ARGS[tool.name] ?? {} })) as ToolResult;
        const refused = result.isError === true && /write token/.test(result.content[0]!.text);
        assert.equal(refused, writing.includes(tool.name), `${tool.name}: ${result.content[0]!.text}`);
      }
    } finally {
      await reader.close();
    }

    const writer = await mcpClient(server, WRITE);
    try {
      const result = (await writer.callTool({ name: 'crawl', arguments: { seeds: ['file:///etc/passwd'] } })) as ToolResult;
      assert.equal(result.isError, true);
      assert.doesNotMatch(result.content[0]!.text, /write token/, 'the write token passes; the seed itself is refused');
      assert.match(result.content[0]!.text, /file: URLs are not fetched/);
    } finally {
      await writer.close();
    }
  } finally {
    await server.close();
    data.cleanup();
  }
});

test('a loopback server without a write token starts nothing over MCP either, and says how to allow it', { timeout: 60_000 }, async () => {
  const data = tempDir();
  const settings = resolveSettings(testFlags(data.dir), {});
  const { openLocalForWriting } = await import('../../shared/store/local/open-local.js');
  await openLocalForWriting(data.dir, 'test').close();
  const server = await startServer(settings, { port: '0' }, {});
  try {
    const client = await mcpClient(server);
    try {
      for (const name of ['crawl', 'fetch_page']) {
        const result = (await client.callTool({ name, arguments: ARGS[name]! })) as ToolResult;
        assert.equal(result.isError, true, name);
        assert.match(result.content[0]!.text, /--write-token/, name);
      }
    } finally {
      await client.close();
    }
    const post = await fetch(new URL('/crawls', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"seeds":["http://127.0.0.1:9/"]}',
    });
    assert.equal(post.status, 403);
  } finally {
    await server.close();
    data.cleanup();
  }
});
