// One fetch for anything: a target is routed, fetched through its backend, archived (WARC records
// of every HTTP exchange and an interaction record under the target's normalised key) and returned
// as typed content; the replay answers the same call from the archive with no network.
import { createHash } from 'node:crypto';
import { recordInteraction } from '../archive/interaction.js';
import { ArchiveReplay } from '../archive/replay.js';
import type { WarcWriter } from '../archive/warc-writer.js';
import { FetchedAndFailedError, NeverFetchedError, UsageError, errorMessage } from '../errors.js';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import type { Fetcher, FetchResponse } from '../fetch/http-fetcher.js';
import { extractPage } from '../extract/extract-page.js';
import { parseFeed } from '../extract/feed.js';
import { extractPdf } from '../extract/pdf.js';
import type { BlobStore, CrawlStore, FetchRecord } from '../ports/index.js';
import { canonicalize, urlId } from '../url/canonical.js';
import type { ApiClient, ApiExchange } from './api-client.js';
import type { FetchedContent } from './content.js';
import { routeTarget, type SocialPlatform, type Target } from './route.js';
import { checkSearchProvider, DEFAULT_SEARCH_LIMIT, searchBackend } from './search-backends.js';
import { checkSocialBackend, DEFAULT_SOCIAL_LIMIT, socialBackend } from './social-backends.js';

export interface TargetDeps {
  store: Pick<CrawlStore, 'recordFetch' | 'fetchHistory'>;
  blobs: BlobStore;
  archive?: WarcWriter;
  runId: number;
  fetcher: Fetcher;
  client: ApiClient;
  env: Record<string, string | undefined>;
  robotsToken: string;
  /** Whether robots.txt lets the URL be fetched (checked before each hop); absent: not checked. */
  robotsAllows?: (url: string) => Promise<boolean>;
  clock?: () => number;
}

const MAX_REDIRECTS = 5;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The key of a `searchSocial` call: the platform and its topics, normalised. */
export function socialSearchKey(platform: SocialPlatform, topics: string[]): string {
  return `${platform}-search:${topics.map((t) => t.trim().toLowerCase()).join(' ')}`;
}

/** Archives the exchanges of one search or social call; returns the last one's WARC location. */
async function archiveExchanges(deps: TargetDeps, kind: 'search' | 'social', key: string, backend: string, log: ApiExchange[]) {
  let warc: FetchRecord['warc'];
  for (const x of log) {
    warc = await deps.archive?.write({
      url: x.url,
      runId: deps.runId,
      kind,
      fetcher: 'http',
      date: new Date(x.at),
      durationMs: x.durationMs,
      method: x.method,
      requestHeaders: x.requestHeaders,
      requestBody: x.requestBody ? Buffer.from(x.requestBody) : undefined,
      response: x.status === undefined ? undefined : { status: x.status, headers: x.responseHeaders, body: x.body, truncated: false },
      error: x.error,
      notes: { target: key, backend },
    });
  }
  return warc;
}

/** A search or social call: the backend's answer as typed content, archived; a failure is archived too, then thrown. */
async function apiCall<T extends FetchedContent>(
  deps: TargetDeps,
  { kind, target, key, backend }: { kind: 'search' | 'social'; target: string; key: string; backend: string },
  call: (log: ApiExchange[]) => Promise<Omit<T, 'target' | 'key' | 'contentHash' | 'fetchedAt' | 'durationMs'>>,
): Promise<T> {
  const clock = deps.clock ?? Date.now;
  const at = clock();
  const log: ApiExchange[] = [];
  let content: Omit<T, 'target' | 'key' | 'contentHash' | 'fetchedAt' | 'durationMs'> | undefined;
  let failure: unknown;
  try {
    content = await call(log);
  } catch (err) {
    failure = err;
  }
  const warc = await archiveExchanges(deps, kind, key, backend, log);
  const durationMs = clock() - at;
  const record: FetchRecord = {
    runId: deps.runId,
    urlId: urlId(key),
    url: key,
    kind,
    fetcher: 'http',
    warc,
    status: log.at(-1)?.status,
    fetchedAt: at,
    durationMs,
    bytes: log.reduce((n, x) => n + x.body.length, 0),
    truncated: false,
    notModified: false,
    headers: { 'x-trawl-backend': backend },
  };
  if (!content) {
    await deps.store.recordFetch({ ...record, error: errorMessage(failure) });
    throw failure;
  }
  const full = { target, key, contentHash: sha256(JSON.stringify(content)), fetchedAt: at, durationMs, ...content } as T;
  // The typed content is kept whole: the replay returns exactly this (with the target it is asked for).
  const blob = await deps.blobs.put(Buffer.from(JSON.stringify(full)));
  await deps.store.recordFetch({ ...record, contentHash: blob });
  return full;
}

/** Types an HTTP response: page (HTML and its markdown), feed, PDF text, or raw. */
export async function typedResponse(
  deps: Pick<TargetDeps, 'robotsToken'>,
  target: string,
  key: string,
  res: FetchResponse,
  at: number,
): Promise<FetchedContent> {
  const body = res.body ?? Buffer.alloc(0);
  const base = { target, key, contentHash: sha256(body), fetchedAt: at, durationMs: res.durationMs, url: res.url, status: res.status };
  if (res.status >= 200 && res.status < 300 && res.contentClass === 'html') {
    const html = decodeBody(body, sniffCharset(body, res.charset, true));
    const x = extractPage(html, res.url, { canonicalize: (h) => canonicalize(h), robotsToken: deps.robotsToken });
    return { ...base, type: 'page', title: x.title, html, markdown: x.markdown };
  }
  if (res.status >= 200 && res.status < 300 && (res.contentClass === 'xml' || /json\+?feed|feed\+json/.test(res.mime))) {
    const feed = parseFeed(decodeBody(body, sniffCharset(body, res.charset, false)), res.url);
    if (feed.items.length || feed.format !== 'unknown')
      return { ...base, type: 'feed', title: feed.title, items: feed.items.map((i) => ({ url: i.url, title: i.title, published: i.published })) };
  }
  if (res.status >= 200 && res.status < 300 && res.contentClass === 'pdf') {
    const pdf = await extractPdf(body);
    return { ...base, type: 'pdf', title: pdf.title, text: pdf.text, pages: pdf.pages };
  }
  return { ...base, type: 'raw', mime: res.mime, bytes: body.length };
}

async function fetchUrl(deps: TargetDeps, input: string, url: string): Promise<FetchedContent> {
  const clock = deps.clock ?? Date.now;
  let current = url;
  for (let hop = 0; ; hop++) {
    if (deps.robotsAllows && !(await deps.robotsAllows(current)))
      throw new UsageError(`robots.txt of ${new URL(current).host} does not allow ${current} for ${deps.robotsToken}: not fetched`);
    const at = clock();
    let res: FetchResponse | undefined;
    let error: string | undefined;
    try {
      res = await deps.fetcher.fetch({ url: current, kind: 'page' });
    } catch (err) {
      error = errorMessage(err);
    }
    await recordInteraction(deps, deps.runId, { url: current, kind: 'page' }, 'page', { res, error, at });
    if (!res) throw new FetchedAndFailedError(current, { error });
    if (res.location && res.status >= 300 && res.status < 400 && hop < MAX_REDIRECTS) {
      current = canonicalize(res.location) ?? res.location;
      continue;
    }
    return typedResponse(deps, input, url, res, at);
  }
}

/**
 * Fetches a target: a URL over HTTP (redirects followed, each hop archived), a search query through
 * the configured provider, an account through its platform's backend. `limit` caps results and
 * posts (defaults: search 10, Reddit 25, other platforms 20).
 */
export async function fetchTarget(deps: TargetDeps, input: string, options: { limit?: number } = {}): Promise<FetchedContent> {
  const t = routeTarget(input);
  if (t.kind === 'url') return fetchUrl(deps, input, t.url);
  if (t.kind === 'search') {
    const backend = searchBackend(deps.env, deps.client);
    return apiCall(deps, { kind: 'search', target: input, key: t.key, backend: backend.name }, async (log) => ({
      type: 'search-results' as const,
      query: t.query,
      backend: backend.name,
      results: await backend.search(t.query, options.limit ?? DEFAULT_SEARCH_LIMIT, log),
    }));
  }
  const backend = socialBackend(t.platform, deps.env, deps.client);
  return apiCall(deps, { kind: 'social', target: input, key: t.key, backend: backend.name }, async (log) => ({
    type: 'social-posts' as const,
    platform: t.platform,
    account: t.key.slice(t.platform.length + 1),
    backend: backend.name,
    posts: await backend.posts(t, options.limit ?? DEFAULT_SOCIAL_LIMIT[t.platform], log),
  }));
}

/** Throws the UsageError a call would for a target whose backend is not configured (no request made). */
export function checkTargetBackend(target: Target, env: Record<string, string | undefined>): void {
  if (target.kind === 'search') checkSearchProvider(env);
  if (target.kind === 'social') checkSocialBackend(target.platform, env);
}

/** Hashtag or topic search on a platform, where one string cannot say it; archived like any call. */
export async function searchSocial(deps: TargetDeps, platform: SocialPlatform, topics: string[], limit?: number): Promise<FetchedContent> {
  const words = topics.map((t) => t.trim()).filter(Boolean);
  if (!words.length) throw new UsageError('searchSocial needs at least one topic: a hashtag or words');
  const backend = socialBackend(platform, deps.env, deps.client);
  const key = socialSearchKey(platform, words);
  return apiCall(deps, { kind: 'social', target: words.join(' '), key: key, backend: backend.name }, async (log) => ({
    type: 'social-posts' as const,
    platform,
    account: key.slice(platform.length + 1),
    backend: backend.name,
    posts: await backend.search(words, limit ?? DEFAULT_SOCIAL_LIMIT[platform], log),
  }));
}

/** The replay's side: the typed content of a target from the archive, with no network (redirects followed as archived). */
export async function replayTarget(
  deps: { store: CrawlStore; blobs: BlobStore; dataDir: string; robotsToken: string },
  input: string,
): Promise<FetchedContent> {
  const target = routeTarget(input);
  if (target.kind !== 'url') return replayApi(deps, input, target.key);
  const replay = new ArchiveReplay(deps.store, deps.dataDir);
  let url = target.url;
  for (let hop = 0; ; hop++) {
    const record = await replay.recordFor(url);
    const res = await replay.fetch({ url, kind: 'page' });
    if (res.location && res.status >= 300 && res.status < 400 && hop < MAX_REDIRECTS) {
      url = canonicalize(res.location) ?? res.location;
      continue;
    }
    return typedResponse(deps, input, target.url, { ...res, url: record.url, durationMs: record.durationMs }, record.fetchedAt);
  }
}

/**
 * A search or social call from the archive: the newest interaction with a stored answer (of run
 * `runId` only, when given); "never fetched" told apart from "failed".
 */
export async function replayApi(
  deps: { store: Pick<CrawlStore, 'fetchHistory'>; blobs: BlobStore },
  input: string,
  key: string,
  runId?: number,
): Promise<FetchedContent> {
  const history = (await deps.store.fetchHistory(urlId(key))).filter(
    (r) => (r.kind === 'search' || r.kind === 'social') && (runId === undefined || r.runId === runId),
  );
  if (!history.length) throw new NeverFetchedError(key);
  const answered = history.filter((r) => r.contentHash).at(-1);
  if (!answered) throw new FetchedAndFailedError(key, history.at(-1)!);
  const blob = await deps.blobs.get(answered.contentHash!);
  if (!blob) throw new FetchedAndFailedError(key, { error: `the archived answer ${answered.contentHash} is missing from the blob store` });
  return { ...(JSON.parse(blob.toString('utf8')) as FetchedContent), target: input };
}
