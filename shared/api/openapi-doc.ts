// The OpenAPI document of the whole server: the routes declared with their schemas, the routes
// served without one (`/metrics`, the event stream, `/mcp`, the UI), the answers every route can get
// from the guards in front of it, and the security schemes the server was started with.
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorBody } from './schemas.js';
import { OPEN_PATHS } from './guards.js';
import { SAFE_METHODS } from './write-access.js';

/** How the server was started: which guards answer before a route does. */
export interface DocumentedGuards {
  /** A read token is required (`--token`). */
  token: boolean;
  /** Writes take a write token (`token`) or IAM (`iam`). */
  writeAuth: 'token' | 'iam';
  /** An API key header is required (the Lambda's public URL mode). */
  apiKeyHeader?: string;
  crawls: boolean;
  mcp: boolean;
}

const text = (schema: z.ZodType, type: string, description: string) => ({ content: { [type]: { schema } }, description });
const errorJson = (description: string) => ({ content: { 'application/json': { schema: ErrorBody } }, description });

/** A JSON-RPC 2.0 message (MCP's wire format): a request, a notification or a response. */
const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('JsonRpcMessage');

/** The routes the app serves with plain handlers, registered in the document by hand. */
export function registerPlainRoutes(app: OpenAPIHono, guards: DocumentedGuards): void {
  const registry = app.openAPIRegistry;
  registry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics: the store, the crawl and the API (text exposition format 0.0.4)',
    responses: { 200: text(z.string(), 'text/plain', 'The metrics.') },
  });
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: text(z.record(z.string(), z.unknown()), 'application/json', 'The OpenAPI 3.1 document.') },
  });
  registry.registerPath({
    method: 'get',
    path: '/',
    summary: 'The web UI',
    responses: { 200: text(z.string(), 'text/html', 'The UI page.'), 503: errorJson('The UI is not built (npm run build:ui).') },
  });
  registry.registerPath({
    method: 'get',
    path: '/ui/{file}',
    summary: 'A file of the web UI (its script, styles and fonts)',
    request: { params: z.object({ file: z.string().openapi({ param: { name: 'file', in: 'path' }, example: 'app.js' }) }) },
    responses: { 200: text(z.string(), '*/*', 'The file.'), 404: errorJson('No such UI file.') },
  });
  if (guards.crawls)
    registry.registerPath({
      method: 'get',
      path: '/crawls/{id}/events',
      summary: "A crawl job's progress as Server-Sent Events until it ends (crawl.progress, crawl.finished, crawl.failed, crawl.stopped)",
      request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) }) },
      responses: {
        200: text(z.string(), 'text/event-stream', 'The events, one JSON object each.'),
        404: errorJson('No such crawl job.'),
        501: errorJson('This server does not stream events: poll GET /crawls/{id}.'),
      },
    });
  if (guards.mcp) {
    const rpcError = (description: string) => text(JsonRpcMessage, 'application/json', description);
    registry.registerPath({
      method: 'post',
      path: '/mcp',
      summary: 'MCP over Streamable HTTP (stateless, JSON answers): the tools an agent calls. Writing tools need the write token.',
      request: { body: { content: { 'application/json': { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } } } },
      responses: {
        200: text(z.union([JsonRpcMessage, z.array(JsonRpcMessage)]), 'application/json', 'The answer to the message.'),
        202: { description: 'Notifications and responses accepted: no body.' },
        400: rpcError('Not a JSON-RPC message, or not one MCP takes.'),
        406: rpcError('The Accept header must list application/json and text/event-stream.'),
        415: rpcError('The body must be application/json.'),
      },
    });
    for (const method of ['get', 'delete'] as const)
      registry.registerPath({
        method,
        path: '/mcp',
        summary: 'Not served: the MCP endpoint is stateless (no stream, no session to end)',
        responses: { 405: rpcError('Method not allowed.') },
      });
  }
}

/** Paths whose operations decide writes themselves (MCP's tools): the write guard lets them through. */
export const PER_OPERATION_WRITES: readonly string[] = ['/mcp'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/**
 * An operation's id from its method and path, as a client generator names its function:
 * `GET /pages/{id}/inlinks` is `getPagesByIdInlinks`. Unique because method and path are.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      const word = (param ? `by-${param[1]!}` : segment).replace(/\.json$/, '-json');
      return word
        .split(/[^a-zA-Z0-9]+/)
        .filter(Boolean)
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
    });
  return `${method.toLowerCase()}${words.join('') || 'Root'}`;
}

interface Operation {
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
  operationId?: string;
}

const errorRef = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/**
 * The generated document completed with what the guards answer on every route (401, 403, 413, 421,
 * 500, and a 400 wherever a parameter or body is validated) and the security schemes in force.
 */
export function completeDocument<T extends object>(generated: T, guards: DocumentedGuards): T {
  const doc = generated as { paths?: Record<string, Record<string, unknown>>; components?: Record<string, unknown> };
  const schemes: Record<string, unknown> = {};
  if (guards.token)
    schemes.readToken = { type: 'http', scheme: 'bearer', description: 'The read token the server was started with (--token); the write token reads too.' };
  if (guards.writeAuth === 'token')
    schemes.writeToken = {
      type: 'http',
      scheme: 'bearer',
      description: 'The write token (--write-token, TRAWL_API_WRITE_TOKEN): needed to start or stop crawls and by MCP tools that write.',
    };
  else
    schemes.awsIam = {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'AWS Signature Version 4 (the Lambda Function URL checks lambda:InvokeFunctionUrl).',
    };
  if (guards.apiKeyHeader) schemes.apiKey = { type: 'apiKey', in: 'header', name: guards.apiKeyHeader, description: 'The deployment’s API key.' };
  const withKey = (req: Record<string, string[]>) => (guards.apiKeyHeader ? { ...req, apiKey: [] } : req);
  const writer = guards.writeAuth === 'token' ? 'writeToken' : 'awsIam';
  const readers = guards.token ? [withKey({ readToken: [] }), withKey({ [writer]: [] })] : guards.apiKeyHeader ? [withKey({})] : [];

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      // The same rules the guards apply: a path template's parameters stand for one segment each.
      const open = method === 'get' && OPEN_PATHS.test(path.replace(/\{[^}]+\}/g, 'x'));
      const write = !SAFE_METHODS.has(method.toUpperCase()) && !PER_OPERATION_WRITES.includes(path);
      const add = (status: number, description: string) => {
        if (!op.responses[String(status)]) op.responses[String(status)] = errorRef(description);
      };
      if ((op.parameters?.length ?? 0) > 0 || op.requestBody) add(400, 'A parameter or the body is not valid: the message names it.');
      if (op.requestBody) add(413, 'The body is over 1 MiB.');
      if (write) {
        add(401, 'The write token is missing or wrong.');
        add(403, 'Writes are off on this server, or this caller may not write.');
      }
      if (!open && (guards.token || guards.apiKeyHeader)) add(401, 'The token or API key is missing or wrong.');
      add(421, 'The Host header is not one this server answers for (DNS rebinding guard).');
      add(500, 'Internal error: the server log has the details.');
      if (open) op.security = [];
      else if (write) op.security = [withKey({ [writer]: [] })];
      else if (readers.length) op.security = readers;
      op.operationId ??= operationIdOf(method, path);
    }
  }
  if (Object.keys(schemes).length) doc.components = { ...doc.components, securitySchemes: schemes };
  return generated;
}
