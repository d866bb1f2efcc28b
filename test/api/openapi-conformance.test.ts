// The OpenAPI document is complete and true: a maintained validator (@seriousme/openapi-schema-validator,
// the OpenAPI 3.1 JSON schema) accepts it, and every route of a live `trawl serve` (read token,
// write token, MCP, crawl jobs) answers only statuses, content types and bodies it declares, the
// guards' answers (401, 400, 413, 421) included. The check itself fails on an undeclared answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startServer } from '../../shared/cli/serve-command.js';
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';
import { OpenApiChecker } from './openapi-check.js';
import { serve } from '../../support/helpers.js';

/** Runs Redocly's CLI (`redocly lint`, recommended rules) on a document; its JSON report. */
async function redoclyLint(
  doc: object,
): Promise<{ totals: { errors: number; warnings: number }; problems: Array<{ severity: string; ruleId: string; message: string }> }> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    // Not spawnSync: the server under test answers from this process.
    const out = await new Promise<string>((done, fail) =>
      execFile(
        process.execPath,
        ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--format=json'],
        { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
        (err, stdout) =>
          // It exits 1 when it finds an error: the report says which.
          stdout.trim().startsWith('{') ? done(stdout) : fail(err ?? new Error(`redocly printed no report: ${stdout.slice(0, 300)}`)),
      ),
    );
    return JSON.parse(out) as Awaited<ReturnType<typeof redoclyLint>>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const READ = 'a-read-token-of-some-length';
const WRITE = 'a-write-token-of-some-length';

interface Answer {
  status: number;
  type: string | null;
  text: string;
}

test('the OpenAPI document validates, and every live answer of every route is one it declares', { timeout: 240_000 }, async () => {
  await withEnrichedCrawl(async (settings) => {
    const server = await startServer(settings, { port: '0', token: READ, 'write-token': WRITE }, {});
    const site = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>One</title><p>One page.</p>'));
    try {
      const call = async (
        method: string,
        path: string,
        init: { token?: string | null; body?: string; headers?: Record<string, string> } = {},
      ): Promise<Answer> => {
        const token = init.token === undefined ? READ : init.token;
        const res = await fetch(new URL(path, server.url), {
          method,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
          body: init.body,
        });
        return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
      };

      const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
        new Promise<Answer>((resolve, reject) => {
          const req = httpRequest(
            new URL(path, server.url),
            { method, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers },
            (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? null, text }));
            },
          );
          // The server may answer and close before the whole body is sent.
          req.on('error', (err) => (body ? undefined : reject(err)));
          req.end(body);
        });

      const doc = JSON.parse((await call('GET', '/openapi.json')).text) as Record<string, unknown> & {
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      const validation = await new Validator().validate(doc);
      assert.ok(validation.valid, `the document is valid OpenAPI 3.1: ${JSON.stringify(validation.errors)}`);
      // Redocly's linter, its recommended rules: no error; every operation has an id and a summary.
      const lint = await redoclyLint(doc);
      assert.equal(lint.totals.errors, 0, JSON.stringify(lint.problems.filter((p) => p.severity === 'error')));
      for (const item of Object.values(doc.paths))
        for (const op of Object.values(item) as Array<{ operationId?: string; summary?: string }>)
          assert.ok(op.operationId && op.summary, JSON.stringify(op).slice(0, 200));
      const schemes = (doc.components as { securitySchemes?: Record<string, unknown> }).securitySchemes ?? {};
      assert.deepEqual(Object.keys(schemes).sort(), ['readToken', 'writeToken']);
      assert.deepEqual(doc.paths['/crawls']!.post!.security, [{ writeToken: [] }]);
      assert.deepEqual(doc.paths['/healthz']!.get!.security, []);
      for (const path of ['/metrics', '/crawls/{id}/events', '/mcp', '/openapi.json']) assert.ok(doc.paths[path], `${path} is in the document`);

      const checker = new OpenApiChecker(doc as never);
      const answered: Array<[string, string, Answer]> = [];
      const expect = async (method: string, path: string, status: number, init?: Parameters<typeof call>[2]) => {
        const a = await call(method, path, init);
        assert.equal(a.status, status, `${method} ${path}: ${a.text.slice(0, 300)}`);
        checker.check(method, path, a.status, a.type, a.text);
        answered.push([method, path, a]);
        return a;
      };

      await expect('GET', '/healthz', 200, { token: null });
      await expect('GET', '/openapi.json', 200);
      await expect('GET', '/metrics', 200);
      await expect('GET', '/', 200, { token: null });
      await expect('GET', '/ui/nothing-here.js', 404, { token: null });
      const found = JSON.parse((await expect('GET', '/search?q=seasoning%20cast%20iron', 200)).text) as { hits: Array<{ urlId: string }> };
      await expect('GET', '/search', 400);
      await expect('GET', '/search?q=bread', 401, { token: null });
      await expect('GET', '/search?q=bread', 401, { token: 'not-the-token' });
      // The write token reads too.
      await expect('GET', '/search?q=bread', 200, { token: WRITE });
      const id = found.hits[0]!.urlId;
      await expect('GET', `/pages/${id}`, 200);
      await expect('GET', '/pages/not-an-id', 400);
      await expect('GET', `/pages/${'0'.repeat(32)}`, 404);
      await expect('GET', '/graph/top', 200);
      await expect('GET', '/graph/top?limit=0', 400);
      await expect('GET', `/graph/neighbourhood/${id}`, 200);
      await expect('GET', `/graph/neighbourhood/${'0'.repeat(32)}`, 404);
      await expect('GET', '/runs', 200);
      await expect('GET', '/runs/1', 200);
      await expect('GET', '/runs/abc', 400);
      await expect('GET', '/runs/999', 404);
      await expect('GET', '/changes', 200);
      await expect('GET', '/changes?kind=nothing', 400);
      await expect('GET', `/changes/1/${id}/diff`, 404);

      // Crawl jobs: the write guard's answers, validation, a job started, followed and stopped.
      const job = JSON.stringify({ seeds: [`${site.origin}/`], maxPages: 1, enrich: false });
      await expect('POST', '/crawls', 401, { body: job });
      await expect('POST', '/crawls', 400, { token: WRITE, body: JSON.stringify({ seeds: [] }) });
      // Over 1 MiB: answered before the body is read (a plain request, which may see the socket close).
      const big = await raw(
        'POST',
        '/crawls',
        { authorization: `Bearer ${WRITE}`, 'content-type': 'application/json' },
        JSON.stringify({ seeds: ['x'.repeat(1.2 * 1024 * 1024)] }),
      );
      assert.equal(big.status, 413);
      checker.check('POST', '/crawls', big.status, big.type, big.text);
      await expect('GET', '/crawls/nope', 400);
      await expect('GET', '/crawls/00000000-0000-4000-8000-000000000000', 404);
      await expect('GET', '/crawls/00000000-0000-4000-8000-000000000000/events', 404);
      await expect('DELETE', '/crawls/00000000-0000-4000-8000-000000000000', 404, { token: WRITE });
      const started = JSON.parse((await expect('POST', '/crawls', 202, { token: WRITE, body: job })).text) as { id: string };
      await expect('GET', `/crawls/${started.id}`, 200);
      await expect('DELETE', `/crawls/${started.id}`, 202, { token: WRITE });
      await expect('GET', `/crawls/${started.id}/events`, 200);

      // MCP: a message answered, a malformed one refused, the methods a stateless endpoint does not serve.
      const mcpHeaders = { accept: 'application/json, text/event-stream' };
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'conformance', version: '1' } },
      });
      await expect('POST', '/mcp', 200, { body: initialize, headers: mcpHeaders });
      await expect('POST', '/mcp', 400, { body: '{"not":"json-rpc"}', headers: mcpHeaders });
      await expect('POST', '/mcp', 406, { body: initialize, headers: { accept: 'text/html' } });
      await expect('GET', '/mcp', 405, { headers: mcpHeaders });
      await expect('DELETE', '/mcp', 405, { headers: mcpHeaders });

      // The Host guard answers every route (fetch cannot set Host: a plain request does).
      for (const path of ['/search?q=bread', '/healthz']) {
        const a = await raw('GET', path, { host: 'evil.example', authorization: `Bearer ${READ}` });
        assert.equal(a.status, 421);
        checker.check('GET', path, a.status, a.type, a.text);
      }

      // Every path and method of the document was answered at least once.
      const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
      const covered = new Set([...checker.seen].map((s) => s.split(' ').slice(0, 2).join(' ')));
      assert.deepEqual(
        operations.filter((o) => !covered.has(o)),
        [],
        'every operation is driven',
      );

      // The check fails on an answer its route does not declare.
      const stripped = JSON.parse(JSON.stringify(doc)) as typeof doc & { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      delete stripped.paths['/crawls/{id}']!.get!.responses['400'];
      const [method, path, a] = answered.find(([m, p]) => m === 'GET' && p === '/crawls/nope')!;
      assert.throws(() => new OpenApiChecker(stripped as never).check(method, path, a.status, a.type, a.text), /answered 400, which it does not declare/);
    } finally {
      await server.close();
      await site.close();
    }
  });
});
