import { cookieHeader, cookiesFor, sessionCookiesOf, type SessionCookie } from './session-cookies.js';
import { Agent, type Dispatcher } from 'undici';
import { AddressGuard, type Resolver } from './address-guard.js';
import { readCappedBody } from './body-reader.js';
import { acceptedClass, parseContentType, type ContentClass, type FetchKind } from './content-type.js';
import { AddressRefusedError, NonRetryableFetchError, RetryableFetchError } from '../errors.js';
import type { Gate } from '../util/gate.js';

/** An error answer's page is archived up to this many bytes, then marked truncated. */
export const ERROR_BODY_BYTES = 256 * 1024;

/** How many large bodies a crawl holds at once: a body that grows past `bytes` waits for a slot of `gate`. */
export interface LargeBodies {
  bytes: number;
  gate: Gate;
}

/**
 * One request's share of that bound: a body that grows past `bytes` is read further only once it
 * holds a slot, whose `release` the fetcher leaves here for the caller to call when the body is
 * processed.
 */
export interface LargeBodySlot extends LargeBodies {
  release?: () => void;
}

export interface FetchRequest {
  url: string;
  kind: FetchKind;
  etag?: string;
  lastModified?: string;
  /** Stop reading once the body holds this text (`</head>`: a link preview reads only the head). */
  stopAfter?: string;
  /** The crawl's bound on large bodies held at once (none: any number), one object per request. */
  largeBody?: LargeBodySlot;
}

export interface FetchResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** The body (decoded from its Content-Encoding), or null when it was not read. */
  body: Buffer | null;
  truncated: boolean;
  mime: string;
  charset?: string;
  contentClass: ContentClass | null;
  /** Set when the body was deliberately not read. */
  skipped?: 'content-type';
  wireBytes: number;
  durationMs: number;
  /** The absolute Location of a 3xx response. */
  location?: string;
}

/** The fetch port: the live HTTP fetcher and (later) the archive replay implement it. */
export interface Fetcher {
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /** The headers a request is sent with, for the archive's request record. */
  requestHeaders(request: FetchRequest): Record<string, string>;
  close(): Promise<void>;
}

export interface HttpFetcherOptions {
  userAgent: string;
  allowPrivateNetwork: boolean;
  maxBodyBytes: number;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  resolver?: Resolver;
  clock?: () => number;
  /** The user's session cookies (`--cookies`): each request carries those of its host. */
  cookies?: readonly SessionCookie[];
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function classifyError(err: unknown, url: string): Error {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof AddressRefusedError) return e;
  }
  const code = (err as { code?: string }).code ?? '';
  const name = (err as Error).name ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME') return new NonRetryableFetchError(`${url}: host not found (${code})`, { cause: err });
  if (name === 'TimeoutError' || name === 'AbortError' || code.startsWith('UND_ERR') || code.startsWith('E')) {
    return new RetryableFetchError(`${url}: ${code || name}: ${message}`, { cause: err });
  }
  return new RetryableFetchError(`${url}: ${message}`, { cause: err });
}

/** The live fetcher: undici with keep-alive, timeouts, a streaming body cap and the address guard. */
/** The settings a fetcher is made from (a crawl's, `extract`'s, the homepage pass's). */
export interface FetcherSettings {
  userAgent: string;
  allowPrivateNetwork: boolean;
  maxBodyBytes: number;
  connectTimeoutMs: number;
  timeoutMs: number;
  /** `--cookies`: the user's session (`sessionCookiesOf`). */
  cookies?: unknown;
}

/** A fetcher configured from crawl settings; `overrides` replace single options (a preview's smaller cap and timeout). */
export function fetcherFor(settings: FetcherSettings, overrides: Partial<HttpFetcherOptions> = {}): HttpFetcher {
  return new HttpFetcher({
    userAgent: settings.userAgent,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    maxBodyBytes: settings.maxBodyBytes,
    connectTimeoutMs: settings.connectTimeoutMs,
    totalTimeoutMs: settings.timeoutMs,
    ...overrides,
    cookies: overrides.cookies ?? sessionCookiesOf(settings),
  });
}

export class HttpFetcher implements Fetcher {
  private readonly agent: Agent;
  private readonly guard: AddressGuard;
  private readonly clock: () => number;

  constructor(private readonly options: HttpFetcherOptions) {
    this.guard = new AddressGuard({ allowPrivateNetwork: options.allowPrivateNetwork, resolver: options.resolver });
    this.clock = options.clock ?? Date.now;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 4,
      headersTimeout: options.totalTimeoutMs,
      bodyTimeout: options.totalTimeoutMs,
      connect: { timeout: options.connectTimeoutMs, lookup: this.guard.lookup as never },
    });
  }

  async fetch(request: FetchRequest): Promise<FetchResponse> {
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NonRetryableFetchError(`${request.url}: only http and https are fetched`);
    this.guard.checkHostLiteral(url.hostname);
    const started = this.clock();
    const cookie = cookieHeader(cookiesFor(this.options.cookies ?? [], request.url));
    const headers = { ...this.requestHeaders(request), ...(cookie ? { cookie } : {}) };
    const deadline = new Deadline(this.options.totalTimeoutMs);
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, signal: deadline.signal });
      } catch (err) {
        throw classifyError(err, request.url);
      }
      return await this.readResponse(request, res, started, deadline);
    } finally {
      deadline.clear();
    }
  }

  private async readResponse(request: FetchRequest, res: Dispatcher.ResponseData, started: number, deadline: Deadline): Promise<FetchResponse> {
    const headers = flattenHeaders(res.headers);
    const { mime, charset } = parseContentType(headers['content-type']);
    const base: FetchResponse = {
      url: request.url,
      status: res.statusCode,
      headers,
      body: null,
      truncated: false,
      mime,
      charset,
      contentClass: null,
      wireBytes: 0,
      durationMs: 0,
    };
    if (res.statusCode >= 300 && res.statusCode < 400 && headers.location) {
      base.location = safeResolve(headers.location, request.url);
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    // robots.txt is read whatever its type; other kinds only when the type is on the allow-list.
    const contentClass = ok ? (request.kind === 'robots' ? 'text' : acceptedClass(mime, request.kind)) : null;
    res.body.on('error', () => {}); // aborts below are deliberate; errors while reading surface through the reader
    if (contentClass === null && !ok && res.statusCode < 400) {
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {}); // a redirect's or a 304's few bytes are drained to keep the connection
      return { ...base, durationMs: this.clock() - started };
    }
    if (contentClass === null && !ok) {
      // An error's page (a 404's, a 500's) is archived as served, up to ERROR_BODY_BYTES (then marked truncated).
      try {
        const body = await readCappedBody(res.body, headers['content-encoding'], Math.min(ERROR_BODY_BYTES, this.options.maxBodyBytes));
        return { ...base, ...body, durationMs: this.clock() - started };
      } catch {
        return { ...base, truncated: true, durationMs: this.clock() - started };
      }
    }
    // The wait for a large body's slot is the crawl's, not the host's: it stops the request's
    // clock and is left out of its duration (which the host's politeness learns from).
    const slot = request.largeBody;
    let waitedMs = 0;
    const large = slot && {
      bytes: slot.bytes,
      wait: async () => {
        const from = this.clock();
        deadline.pause();
        slot.release = await slot.gate.acquire();
        deadline.resume();
        waitedMs = this.clock() - from;
      },
    };
    try {
      const body = await readCappedBody(res.body, headers['content-encoding'], this.options.maxBodyBytes, { stopAfter: request.stopAfter, large });
      // A type trawl does not keep is still archived as served (up to the body cap): a replay never
      // answers its URL with an empty 200.
      if (contentClass === null) return { ...base, ...body, skipped: 'content-type', durationMs: this.clock() - started - waitedMs };
      return { ...base, ...body, contentClass, durationMs: this.clock() - started - waitedMs };
    } catch (err) {
      slot?.release?.();
      throw classifyError(err, request.url);
    }
  }

  /** The request's headers as archived: a session cookie sent with it is named, never written out. */
  requestHeaders(request: FetchRequest): Record<string, string> {
    const sent = cookiesFor(this.options.cookies ?? [], request.url);
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,application/pdf;q=0.7,*/*;q=0.1',
      'accept-encoding': 'gzip, deflate, br',
    };
    if (request.etag) headers['if-none-match'] = request.etag;
    if (request.lastModified) headers['if-modified-since'] = request.lastModified;
    if (sent.length) headers.cookie = `[redacted: ${sent.map((c) => c.name).join(', ')}]`;
    return headers;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A request's total timeout that can stop while the crawl, not the host, keeps the body waiting. */
class Deadline {
  private readonly controller = new AbortController();
  private timer?: NodeJS.Timeout;
  private left: number;
  private since = 0;

  constructor(ms: number) {
    this.left = ms;
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  resume(): void {
    this.since = Date.now();
    // The reason AbortSignal.timeout gives, which classifyError knows as a timeout.
    this.timer = setTimeout(() => this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), this.left);
    this.timer.unref();
  }

  pause(): void {
    this.clear();
    this.left = Math.max(0, this.left - (Date.now() - this.since));
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

function safeResolve(location: string, base: string): string | undefined {
  try {
    return new URL(location, base).href;
  } catch {
    return undefined;
  }
}
