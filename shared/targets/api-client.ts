// The HTTP client of the search and social backends: JSON over undici, through the address guard,
// honouring each API's rate-limit headers (Retry-After, X-RateLimit-*/RateLimit-* in their
// seconds, epoch or date forms), retrying 429/5xx and network errors with back-off, and keeping
// every exchange (API keys redacted) for the archive.
import { ApiError } from '../errors.js';
export { ApiError } from '../errors.js';
import { Agent } from 'undici';
import { AddressGuard, type Resolver } from '../fetch/address-guard.js';
import { AddressRefusedError } from '../errors.js';

export interface ApiExchange {
  method: 'GET' | 'POST';
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders: Record<string, string>;
  body: Buffer;
  durationMs: number;
  at: number;
  error?: string;
}

export interface ApiClientOptions {
  userAgent: string;
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
  timeoutMs?: number;
  /** Tries per call (429, 5xx, network errors). @default 4 */
  attempts?: number;
  /** First back-off without a Retry-After. @default 1000 */
  backoffBaseMs?: number;
  /** Longest wait for a rate limit; a longer one fails the call naming the time. @default 60000 */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  clock?: () => number;
}

/** Header names whose values never reach the archive or a log. */
const SECRET_HEADERS = /^(authorization|x-api-key|x-subscription-token|cookie|proxy-authorization)$/i;

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADERS.test(k) ? '[redacted]' : v]));
}

/** A reset header in any of its forms (seconds from now, epoch seconds, an HTTP or ISO date) as a time. */
export function resetTime(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const first = value.split(',')[0]!.trim();
  if (/^\d+(\.\d+)?$/.test(first)) {
    const n = Number(first);
    return n > 1e9 ? n * 1000 : now + n * 1000;
  }
  const t = Date.parse(first);
  return Number.isNaN(t) ? undefined : t;
}

/** When the API says the next call may go: Retry-After, or a rate-limit reset once nothing remains. */
function limitedUntil(status: number | undefined, h: Record<string, string>, now: number): number | undefined {
  const retryAfter = h['retry-after'];
  if (retryAfter) return resetTime(retryAfter, now) ?? undefined;
  const remaining = h['x-ratelimit-remaining'] ?? h['ratelimit-remaining'];
  const exhausted = remaining !== undefined && remaining.split(',').some((r) => Number(r.trim()) <= 0);
  if (exhausted || status === 429) return resetTime(h['x-ratelimit-reset'] ?? h['ratelimit-reset'], now);
  return undefined;
}

export class ApiClient {
  private readonly agent: Agent;
  private readonly guard: AddressGuard;
  private readonly clock: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Per origin: no call before this time (a rate limit ran out). */
  private readonly notBefore = new Map<string, number>();

  constructor(private readonly options: ApiClientOptions) {
    this.guard = new AddressGuard({ allowPrivateNetwork: options.allowPrivateNetwork, resolver: options.resolver });
    this.clock = options.clock ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    const timeout = options.timeoutMs ?? 30_000;
    this.agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout, lookup: this.guard.lookup as never } });
  }

  /**
   * Calls a JSON API; `log` receives every exchange (retries included). Throws an ApiError for a
   * 4xx other than 429, or when the retries or the longest wait run out.
   */
  async json(request: { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; body?: unknown }, log: ApiExchange[]): Promise<unknown> {
    const method = request.method ?? 'GET';
    const url = new URL(request.url);
    const headers: Record<string, string> = { 'user-agent': this.options.userAgent, accept: 'application/json', ...lower(request.headers ?? {}) };
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (body) headers['content-type'] = 'application/json';
    const attempts = this.options.attempts ?? 4;
    const maxWait = this.options.maxWaitMs ?? 60_000;
    for (let attempt = 1; ; attempt++) {
      await this.waitFor(url.origin, maxWait);
      this.guard.checkHostLiteral(url.hostname);
      const at = this.clock();
      const exchange: ApiExchange = {
        method,
        url: url.href,
        requestHeaders: redactHeaders(headers),
        requestBody: body,
        responseHeaders: {},
        body: Buffer.alloc(0),
        durationMs: 0,
        at,
      };
      let retryAt: number | undefined;
      try {
        const res = await this.agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method,
          headers,
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
        exchange.status = res.statusCode;
        exchange.responseHeaders = flatten(res.headers);
        exchange.body = Buffer.from(await res.body.arrayBuffer());
        exchange.durationMs = this.clock() - at;
        log.push(exchange);
        const until = limitedUntil(res.statusCode, exchange.responseHeaders, this.clock());
        if (until !== undefined) this.notBefore.set(url.origin, until);
        if (res.statusCode >= 200 && res.statusCode < 300) return parseJson(exchange);
        if (res.statusCode !== 429 && res.statusCode < 500)
          throw new ApiError(`${url.origin}${url.pathname} answered HTTP ${res.statusCode}: ${apiMessage(exchange)}`, res.statusCode);
        retryAt = until;
      } catch (err) {
        if (err instanceof ApiError || refused(err)) throw err;
        exchange.error = (err as Error).message;
        exchange.durationMs = this.clock() - at;
        if (!log.includes(exchange)) log.push(exchange);
      }
      if (attempt >= attempts) {
        const last = log.at(-1)!;
        throw new ApiError(`${url.origin}${url.pathname} failed ${attempts} times (last: ${last.error ?? `HTTP ${last.status}`})`, last.status);
      }
      const backoff = (this.options.backoffBaseMs ?? 1000) * 2 ** (attempt - 1);
      const wait = Math.max(backoff, (retryAt ?? 0) - this.clock());
      if (wait > maxWait)
        throw new ApiError(`${url.origin} limits requests until ${new Date(this.clock() + wait).toISOString()}: try again then`, log.at(-1)?.status);
      this.notBefore.set(url.origin, Math.max(this.notBefore.get(url.origin) ?? 0, this.clock() + wait));
    }
  }

  private async waitFor(origin: string, maxWait: number): Promise<void> {
    const wait = (this.notBefore.get(origin) ?? 0) - this.clock();
    if (wait <= 0) return;
    if (wait > maxWait) throw new ApiError(`${origin} limits requests until ${new Date(this.clock() + wait).toISOString()}: try again then`);
    await this.sleep(wait);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function flatten(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function refused(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof AddressRefusedError) return true;
  return false;
}

function parseJson(x: ApiExchange): unknown {
  try {
    return JSON.parse(x.body.toString('utf8'));
  } catch {
    throw new ApiError(`${x.url} did not answer JSON (${x.responseHeaders['content-type'] ?? 'no content type'})`, x.status);
  }
}

/** The error message an API put in its body, when it did. */
function apiMessage(x: ApiExchange): string {
  try {
    const j = JSON.parse(x.body.toString('utf8')) as Record<string, unknown>;
    const m = j.error_description ?? j.message ?? j.error;
    return typeof m === 'string' ? m : JSON.stringify(m ?? j).slice(0, 200);
  } catch {
    return x.body.toString('utf8').slice(0, 200) || 'no body';
  }
}
