// trawl's MCP server driven by an independent client, the MCP Inspector's CLI
// (@modelcontextprotocol/inspector-cli, as `npx @modelcontextprotocol/inspector --cli` runs it):
// over stdio against `trawl mcp`, and over Streamable HTTP against `/mcp` on `trawl serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { startServer } from '../../shared/cli/serve-command.js';
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';

const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the Inspector's JSON output, checked below

/** Runs the Inspector's CLI once and parses the JSON it prints. */
function inspect(args: string[]): Promise<Json> {
  return new Promise((resolve, reject) => {
    // The CLI looks for its package.json relative to the working directory but imports it relative
    // to itself: run from its own directory, where both agree (the Inspector's bug, not trawl's).
    const child = spawn(process.execPath, [INSPECTOR, ...args], { cwd: dirname(INSPECTOR), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the Inspector exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out) as Json);
      } catch {
        reject(new Error(`the Inspector printed no JSON: ${out.slice(0, 500)} ${err.slice(-1000)}`));
      }
    });
  });
}

const toolJson = (result: Json) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Json;

test('the MCP Inspector’s CLI lists and calls trawl’s tools over stdio and over HTTP', { timeout: 180_000 }, async () => {
  await withEnrichedCrawl(async (settings) => {
    const stdio = [process.execPath, '--import', 'tsx', resolve('shared/cli/main.ts'), 'mcp', '--data', resolve(settings.data)];
    const listed = await inspect([...stdio, '--method', 'tools/list']);
    assert.deepEqual((listed.tools as Json[]).map((t) => t.name).sort(), ['crawl', 'crawl_status', 'fetch_page', 'get_page', 'highlights', 'links', 'search']);
    for (const tool of listed.tools as Json[]) assert.equal(tool.inputSchema.type, 'object', `${tool.name} has a JSON schema`);
    const found = toolJson(
      await inspect([...stdio, '--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=seasoning cast iron', '--tool-arg', 'limit=3']),
    );
    assert.match(found.hits[0].url, /cast-iron-care$/);

    const token = 'an-api-token-of-some-length';
    const server = await startServer(settings, { port: '0', token }, {});
    try {
      const http = [new URL('/mcp', server.url).href, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
      const page = toolJson(await inspect([...http, '--method', 'tools/call', '--tool-name', 'get_page', '--tool-arg', `url=${found.hits[0].url}`]));
      assert.match(page.markdown, /cast iron/i);
      const resource = await inspect([...http, '--method', 'resources/read', '--uri', `trawl://page/${page.id}`]);
      assert.match(String(resource.contents[0].text), /cast iron/i);
      await assert.rejects(inspect([new URL('/mcp', server.url).href, '--transport', 'http', '--method', 'tools/list']), /exited 1/, 'no token, no tools');
    } finally {
      await server.close();
    }
  });
});
