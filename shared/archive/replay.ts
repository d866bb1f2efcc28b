import { join } from 'node:path';
import { FetchedAndFailedError, NeverFetchedError } from '../errors.js';

export { FetchedAndFailedError, NeverFetchedError };
import { acceptedClass, parseContentType } from '../fetch/content-type.js';
import type { Fetcher, FetchRequest, FetchResponse } from '../fetch/http-fetcher.js';
import type { CrawlStore, FetchRecord, WarcLocation } from '../ports/index.js';
import { canonicalize, urlId } from '../url/canonical.js';
import { readResponse, type ArchivedResponse } from './warc-reader.js';

export interface ReplayOptions {
  /** Replay the record of this run instead of the newest. */
  runId?: number;
  /** `served` (default): the HTTP response as fetched; `rendered`: the DOM Chromium produced from it (pages that were rendered). */
  view?: 'served' | 'rendered';
}

/** Reads the response a fetch record's WARC record holds (`record.warc` is set): a data directory's files, or the cloud's objects. */
export type ArchiveReader = (record: FetchRecord & { warc: WarcLocation }) => Promise<ArchivedResponse>;

/** The reader of a data directory's WARC files. */
export function dataDirArchive(dataDir: string): ArchiveReader {
  const dir = join(dataDir, 'warc');
  return (record) => readResponse(dir, record.warc);
}

/** A fetcher with the live fetcher's interface that reads only from the WARC archive: no network. */
export class ArchiveReplay implements Fetcher {
  private readonly read: ArchiveReader;

  /** `archive`: a data directory, or a reader of the archive's records. */
  constructor(
    private readonly store: Pick<CrawlStore, 'fetchHistory'>,
    archive: string | ArchiveReader,
    private readonly options: ReplayOptions = {},
  ) {
    this.read = typeof archive === 'string' ? dataDirArchive(archive) : archive;
  }

  /** The record that replay would serve for a URL: the newest with a response, or the one of the given run. */
  async recordFor(url: string): Promise<FetchRecord> {
    return (await this.lookup(url)).record;
  }

  private async lookup(url: string): Promise<{ record: FetchRecord; history: FetchRecord[] }> {
    const canonical = canonicalize(url) ?? url;
    const fetcher = this.options.view === 'rendered' ? 'browser' : 'http';
    const history = (await this.store.fetchHistory(urlId(canonical))).filter(
      // A preview read only the page's head: never served as the page.
      (r) => (r.fetcher ?? 'http') === fetcher && r.kind !== 'preview',
    );
    const own = this.options.runId === undefined ? history : history.filter((r) => r.runId === this.options.runId);
    if (own.length === 0) throw new NeverFetchedError(canonical);
    const full = (r: FetchRecord) => r.warc !== undefined && r.status !== undefined && r.status !== 304;
    let record = own.filter(full).at(-1);
    // A 304 (a revisit in the archive) says "as before": its body is the newest full response's before it.
    const confirmed = own.filter((r) => r.status === 304).at(-1);
    if (!record && confirmed) record = history.filter((r) => full(r) && r.fetchedAt <= confirmed.fetchedAt).at(-1);
    if (!record) throw new FetchedAndFailedError(canonical, own.at(-1)!);
    return { record, history };
  }

  async fetch(request: FetchRequest): Promise<FetchResponse> {
    const { record, history } = await this.lookup(request.url);
    const archived = await this.read(record as FetchRecord & { warc: WarcLocation });
    if (archived.refersTo) {
      // An unchanged body archived as a revisit: the bytes are the first capture's with that body (always a whole response).
      const original = history.find((r) => r.warc && r.contentHash === record.contentHash && r !== record);
      if (!original) throw new Error(`${request.url}: the archive's revisit at ${record.warc!.file} refers to a capture this store no longer records`);
      archived.body = (await this.read(original as FetchRecord & { warc: WarcLocation })).body;
    }
    return responseFromArchive(request, archived);
  }

  requestHeaders(): Record<string, string> {
    return {};
  }

  async close(): Promise<void> {}
}

/** An archived response as the live fetcher would have returned it for `request` (no network figures). */
export function responseFromArchive(request: FetchRequest, archived: ArchivedResponse): FetchResponse {
  const { mime, charset } = parseContentType(archived.headers['content-type']);
  const ok = archived.status >= 200 && archived.status < 300;
  const contentClass = ok ? (request.kind === 'robots' ? 'text' : acceptedClass(mime, request.kind)) : null;
  return {
    url: request.url,
    status: archived.status,
    headers: archived.headers,
    // An error's page and a type trawl does not keep are archived as served: the live fetcher returns them too.
    body: contentClass || archived.body.length > 0 ? archived.body : null,
    truncated: archived.truncated,
    mime,
    charset,
    contentClass,
    skipped: ok && !contentClass ? 'content-type' : undefined,
    wireBytes: 0,
    durationMs: 0,
    location: archived.headers.location ? new URL(archived.headers.location, request.url).href : undefined,
  };
}

export interface HistoryEntry {
  runId: number;
  fetchedAt: number;
  status?: number;
  contentHash?: string;
  error?: string;
  /** The body differs from the previous response's (content drift). */
  changed: boolean;
}

/** Fetch records (oldest first) as history entries: a 304 keeps the body it confirmed; `changed` marks drift. */
export function historyOf(records: FetchRecord[]): HistoryEntry[] {
  let last: string | undefined;
  return records.map((r) => {
    const hash = r.notModified ? last : r.contentHash;
    const changed = r.contentHash !== undefined && last !== undefined && r.contentHash !== last;
    if (hash) last = hash;
    return { runId: r.runId, fetchedAt: r.fetchedAt, status: r.status, contentHash: hash, error: r.error, changed };
  });
}
