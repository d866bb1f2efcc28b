/**
 * A columnar index of captures in Parquet, as Common Crawl publishes beside its WARC files: one
 * row per capture the CDXJ index holds (responses, revisits, rendered views, screenshots), in
 * Common Crawl's columnar-index schema (its 33 columns, names, meaning and order; null where a
 * column does not apply), so queries written for its index run on a crawl's, then trawl's record
 * type, page id, run and change kind. Athena, DuckDB and Spark read it without opening a WARC
 * file; `warc_filename`, `warc_record_offset` and `warc_record_length` fetch one record by range.
 * Written with hyparquet-writer (pure JavaScript, snappy-compressed, column statistics on).
 */
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { parse as parseDomain } from 'tldts';
import { urlId } from '../url/canonical.js';

/** What a capture's CDXJ line leaves out of its record, read while indexing it. */
export interface RecordDetails {
  /** WARC-Record-ID's UUID. */
  recordId: string | null;
  /** WARC-Truncated: why the payload was cut (`length`, `time`, …). */
  truncated: string | null;
  /** A redirect's Location, as sent. */
  redirect: string | null;
  /** The charset the response's Content-Type names. */
  charset: string | null;
}

/** What `detailsOf` reads of a record warcio parsed: its WARC headers and its HTTP head. */
export interface IndexedRecord {
  warcHeader(name: string): string | null | undefined;
  httpHeaders?: { headers: { get(name: string): string | null | undefined } } | null;
}

/** The details of a record the indexer read. */
export function detailsOf(record: IndexedRecord): RecordDetails {
  const id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(record.warcHeader('WARC-Record-ID') ?? '');
  const http = record.httpHeaders?.headers;
  const location = http?.get('location') ?? null;
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(http?.get('content-type') ?? '')?.[1] ?? null;
  return { recordId: id ? id[0].toLowerCase() : null, truncated: record.warcHeader('WARC-Truncated') ?? null, redirect: location, charset };
}

export interface Capture {
  urlSurtkey: string;
  url: string;
  urlHostName: string | null;
  /** The host name's labels from the end (null for an address), and its suffixes and domains. */
  urlHostTld: string | null;
  urlHost2ndLastPart: string | null;
  urlHost3rdLastPart: string | null;
  urlHost4thLastPart: string | null;
  urlHost5thLastPart: string | null;
  urlHostRegistrySuffix: string | null;
  urlHostRegisteredDomain: string | null;
  urlHostPrivateSuffix: string | null;
  urlHostPrivateDomain: string | null;
  urlHostNameReversed: string | null;
  urlProtocol: string | null;
  /** The port when the URL names one. */
  urlPort: number | null;
  urlPath: string | null;
  urlQuery: string | null;
  /** When it was captured (the CDXJ's 14 digits: to the second). */
  fetchTime: Date;
  fetchStatus: number | null;
  fetchRedirect: string | null;
  contentMimeType: string | null;
  /** Detected from the bytes: trawl trusts the Content-Type, so none. */
  contentMimeDetected: string | null;
  contentCharset: string | null;
  /** ISO 639-3 codes: trawl records a page's language elsewhere (ISO 639-1, in its extraction), so none here. */
  contentLanguages: string | null;
  contentTruncated: string | null;
  /** The record's WARC-Record-ID, as 16 bytes. */
  warcRecordId: Uint8Array | null;
  /** The payload's digest: base32 SHA-1 as Common Crawl writes it, or `sha256:` and base32; a revisit's is the original's. */
  contentDigest: string | null;
  warcFilename: string;
  warcRecordOffset: number;
  warcRecordLength: number;
  /** The run's number: trawl's files of a run are its segment. */
  warcSegment: string;
  /** `trawl-run-<run>`: the run is the crawl. */
  crawl: string;
  /** Common Crawl's: `warc` (2xx answers and their revisits), `crawldiagnostics` (redirects, 404s, other answers), `robotstxt`; and `rendered` for trawl's rendered views and screenshots. */
  subset: string;
  /** `response`, `revisit`, `conversion` (a rendered view) or `resource` (a screenshot). */
  warcRecordType: string;
  /** trawl's page id (the canonical URL's id), for an http(s) capture. */
  pageId: string | null;
  runId: number | null;
  /** What the run found for the page: new, changed, unchanged or removed (absent in a data directory's first run). */
  changeKind: string | null;
}

/** The run a trawl WARC file belongs to: its name starts `trawl-<run>-`. */
function runOfFile(name: string): number | null {
  const m = /^trawl-(\d+)-/.exec(name);
  return m ? Number(m[1]) : null;
}

function captureTime(ts: string): Date {
  const d = ts.padEnd(14, '0');
  return new Date(Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +d.slice(8, 10), +d.slice(10, 12), +d.slice(12, 14)));
}

/** The CDXJ line names no record type: a revisit has its own mime, a screenshot its own URL, and a rendered view (a conversion record) no HTTP status. */
function recordType(url: string, mime: string | undefined, status: string | undefined): string {
  if (mime === 'warc/revisit') return 'revisit';
  if (url.startsWith('urn:screenshot:')) return 'resource';
  return status ? 'response' : 'conversion';
}

/**
 * The captures of CDXJ lines (`<surt> <14 digits> <json>`, as the WACZ index holds them), with the
 * change kind the store recorded for each (run, page), when `changeKind` knows one.
 */
export function capturesOfCdxj(
  lines: Iterable<string>,
  changeKind: (runId: number, pageId: string) => string | undefined = () => undefined,
  details: ReadonlyMap<string, RecordDetails> = new Map(),
): Capture[] {
  const captures: Capture[] = [];
  for (const line of lines) {
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    if (first < 0 || second < 0) continue;
    const fields = JSON.parse(line.slice(second + 1)) as {
      url: string;
      mime?: string;
      status?: string;
      digest?: string;
      length: string;
      offset: string;
      filename: string;
    };
    const web = /^https?:/i.test(fields.url);
    const pageId = web ? urlId(fields.url) : null;
    const runId = runOfFile(fields.filename);
    const type = recordType(fields.url, fields.mime, fields.status);
    const about = details.get(`${fields.filename} ${fields.offset}`);
    // A 304's revisit has no status line of its own; an unchanged 2xx's revisit has its own.
    const fetchStatus = fields.status ? Number(fields.status) : type === 'revisit' ? 304 : null;
    captures.push({
      urlSurtkey: line.slice(0, first),
      url: fields.url,
      ...urlParts(fields.url),
      fetchTime: captureTime(line.slice(first + 1, second)),
      fetchStatus,
      fetchRedirect: about?.redirect ?? null,
      contentMimeType: fields.mime?.split(';')[0]?.trim() || null,
      contentMimeDetected: null,
      contentCharset: about?.charset ?? null,
      contentLanguages: null,
      contentTruncated: about?.truncated ?? null,
      warcRecordId: about?.recordId ? Buffer.from(about.recordId.replace(/-/g, ''), 'hex') : null,
      // Common Crawl's form for SHA-1 (32 base32 characters, no prefix); a SHA-256 one says what it is.
      contentDigest: fields.digest ? (fields.digest.length === 32 ? fields.digest : `sha256:${fields.digest}`) : null,
      warcFilename: fields.filename,
      warcRecordOffset: Number(fields.offset),
      warcRecordLength: Number(fields.length),
      warcSegment: String(runId ?? 0),
      crawl: `trawl-run-${runId ?? 0}`,
      subset: subsetOf(fields.url, type, fetchStatus),
      warcRecordType: type,
      pageId,
      runId,
      changeKind: (pageId && runId !== null && changeKind(runId, pageId)) || null,
    });
  }
  return captures;
}

/** Common Crawl's subset of a capture: its successful answers, its diagnostics, its robots.txt files. */
function subsetOf(url: string, type: string, status: number | null): string {
  if (type === 'conversion' || type === 'resource') return 'rendered';
  if (/^https?:\/\/[^/]+\/robots\.txt$/i.test(url)) return 'robotstxt';
  return status !== null && ((status >= 200 && status < 300) || status === 304) ? 'warc' : 'crawldiagnostics';
}

type UrlParts = Pick<
  Capture,
  | 'urlHostName'
  | 'urlHostTld'
  | 'urlHost2ndLastPart'
  | 'urlHost3rdLastPart'
  | 'urlHost4thLastPart'
  | 'urlHost5thLastPart'
  | 'urlHostRegistrySuffix'
  | 'urlHostRegisteredDomain'
  | 'urlHostPrivateSuffix'
  | 'urlHostPrivateDomain'
  | 'urlHostNameReversed'
  | 'urlProtocol'
  | 'urlPort'
  | 'urlPath'
  | 'urlQuery'
>;

/** A URL's columns, as Common Crawl splits it (host labels and domains null for an address, or a URL that is not one). */
function urlParts(raw: string): UrlParts {
  let url: URL | undefined;
  try {
    url = /^https?:/i.test(raw) ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  const host = url?.hostname.replace(/^\[|\]$/g, '') ?? null;
  const parsed = host ? parseDomain(host, { allowPrivateDomains: false }) : undefined;
  const named = host !== null && parsed !== undefined && !parsed.isIp;
  const labels = named ? host.split('.').reverse() : [];
  const priv = named ? parseDomain(host, { allowPrivateDomains: true }) : undefined;
  return {
    urlHostName: host,
    urlHostTld: labels[0] ?? null,
    urlHost2ndLastPart: labels[1] ?? null,
    urlHost3rdLastPart: labels[2] ?? null,
    urlHost4thLastPart: labels[3] ?? null,
    urlHost5thLastPart: labels[4] ?? null,
    urlHostRegistrySuffix: (named && parsed.publicSuffix) || null,
    urlHostRegisteredDomain: (named && parsed.domain) || null,
    urlHostPrivateSuffix: priv?.publicSuffix || null,
    urlHostPrivateDomain: priv?.domain || null,
    urlHostNameReversed: named ? labels.join('.') : null,
    urlProtocol: url ? url.protocol.slice(0, -1) : null,
    urlPort: url?.port ? Number(url.port) : null,
    urlPath: url ? url.pathname : null,
    urlQuery: url?.search ? url.search.slice(1) : null,
  };
}

/** The Parquet columns: Common Crawl's 33, in its order, then trawl's own. */
const COLUMNS: Array<[string, keyof Capture, ColumnSource['type']]> = [
  ['url_surtkey', 'urlSurtkey', 'STRING'],
  ['url', 'url', 'STRING'],
  ['url_host_name', 'urlHostName', 'STRING'],
  ['url_host_tld', 'urlHostTld', 'STRING'],
  ['url_host_2nd_last_part', 'urlHost2ndLastPart', 'STRING'],
  ['url_host_3rd_last_part', 'urlHost3rdLastPart', 'STRING'],
  ['url_host_4th_last_part', 'urlHost4thLastPart', 'STRING'],
  ['url_host_5th_last_part', 'urlHost5thLastPart', 'STRING'],
  ['url_host_registry_suffix', 'urlHostRegistrySuffix', 'STRING'],
  ['url_host_registered_domain', 'urlHostRegisteredDomain', 'STRING'],
  ['url_host_private_suffix', 'urlHostPrivateSuffix', 'STRING'],
  ['url_host_private_domain', 'urlHostPrivateDomain', 'STRING'],
  ['url_host_name_reversed', 'urlHostNameReversed', 'STRING'],
  ['url_protocol', 'urlProtocol', 'STRING'],
  ['url_port', 'urlPort', 'INT32'],
  ['url_path', 'urlPath', 'STRING'],
  ['url_query', 'urlQuery', 'STRING'],
  ['fetch_time', 'fetchTime', 'TIMESTAMP'],
  ['fetch_status', 'fetchStatus', 'INT32'],
  ['fetch_redirect', 'fetchRedirect', 'STRING'],
  ['content_digest', 'contentDigest', 'STRING'],
  ['content_mime_type', 'contentMimeType', 'STRING'],
  ['content_mime_detected', 'contentMimeDetected', 'STRING'],
  ['content_charset', 'contentCharset', 'STRING'],
  ['content_languages', 'contentLanguages', 'STRING'],
  ['content_truncated', 'contentTruncated', 'STRING'],
  ['warc_record_id', 'warcRecordId', 'BYTE_ARRAY'],
  ['warc_filename', 'warcFilename', 'STRING'],
  // 64-bit: a trawl WARC file may pass 2 GiB (`--warc-max-bytes`), where Common Crawl's stay at 1 GiB.
  ['warc_record_offset', 'warcRecordOffset', 'INT64'],
  ['warc_record_length', 'warcRecordLength', 'INT64'],
  ['warc_segment', 'warcSegment', 'STRING'],
  ['crawl', 'crawl', 'STRING'],
  ['subset', 'subset', 'STRING'],
  ['warc_record_type', 'warcRecordType', 'STRING'],
  ['page_id', 'pageId', 'STRING'],
  ['run_id', 'runId', 'INT32'],
  ['change_kind', 'changeKind', 'STRING'],
];

/** The captures as one Parquet file. */
export function capturesParquet(captures: readonly Capture[], createdBy = 'trawl'): Uint8Array {
  const columnData: ColumnSource[] = COLUMNS.map(([name, key, type]) => ({
    name,
    type,
    data: captures.map((c) => {
      const v = c[key];
      return type === 'INT64' && typeof v === 'number' ? BigInt(v) : v;
    }),
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy }));
}
