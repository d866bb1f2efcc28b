// Calls the search API Lambda's handler as its Function URL would (payload format 2.0), with its
// SDK calls recorded under `search-api` for the IAM check.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asFunction } from './iam.js';

/** A Lambda Function URL request (payload format 2.0). */
function urlEvent(method: string, pathAndQuery: string, headers: Record<string, string>, body?: unknown, caller?: string) {
  const [rawPath = '/', rawQueryString = ''] = pathAndQuery.split('?');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: { host: 'abc.lambda-url.us-east-1.on.aws', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc',
      domainName: 'abc.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abc',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r1',
      routeKey: '$default',
      stage: '$default',
      time: '24/Nov/2026:00:00:00 +0000',
      timeEpoch: Date.now(),
      // IAM auth: AWS verified the signature and names the caller.
      ...(caller
        ? { authorizer: { iam: { accessKey: 'AKIA', accountId: '123456789012', callerId: 'AROA:session', userArn: caller, userId: 'AROA:session' } } }
        : {}),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    isBase64Encoded: false,
  };
}

export interface ApiAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, checked by the tests' assertions
  json: () => Record<string, any>;
}

/** One request to the search API Lambda (`functions/search-api`), as the environment names its resources; a string body goes as it is. */
export async function callSearchApi(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; caller?: string } = {},
): Promise<ApiAnswer> {
  const { handler } = await import('../../functions/search-api/index.js');
  const event = urlEvent(options.method ?? 'GET', path, options.headers ?? {}, options.body, options.caller);
  const res = (await asFunction('search-api', () => handler(event as never, {} as never))) as {
    statusCode: number;
    body: string;
    headers?: Record<string, string>;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return { status: res.statusCode, body: res.body, headers: res.headers ?? {}, json: () => JSON.parse(res.body) as Record<string, any> };
}

/** A `fetch` that sends each request to the search API Lambda, as its Function URL would (for clients that take one, e.g. MCP's). */
export async function lambdaFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
  const answer = await callSearchApi(url.pathname + url.search, { method: request.method, headers: Object.fromEntries(request.headers), body });
  return new Response(answer.status === 204 || (answer.status === 202 && !answer.body) ? null : answer.body, {
    status: answer.status,
    headers: answer.headers,
  });
}

/** Headers a proxy does not pass on: the connection's own, and the host (the Function URL's is set by `callSearchApi`). */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * The search API Lambda behind a loopback HTTP server, as a client that cannot sign reaches an
 * IAM-authorised Function URL through a SigV4 signing proxy: every request arrives signed as `caller`.
 */
export async function signingProxy(caller: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).flatMap(([k, v]) => (HOP_HEADERS.has(k) || v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]])),
      );
      const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined;
      callSearchApi(req.url ?? '/', { method: req.method, headers, body, caller }).then(
        (answer) => res.writeHead(answer.status, answer.headers).end(answer.body),
        (err: unknown) => res.writeHead(502, { 'content-type': 'text/plain' }).end(String(err)),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
