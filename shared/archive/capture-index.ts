/**
 * A columnar index of captures in Parquet, as Common Crawl publishes beside its WARC files: one
 * row per capture the CDXJ index holds (responses, revisits, rendered views, screenshots), with
 * Common Crawl's column names (`url_surtkey`, `fetch_status`, `warc_filename`, …) so queries written
 * for its index run on a crawl's, plus trawl's page id, run and change kind. Athena, DuckDB and
 * Spark read it without opening a WARC file; `warc_filename`, `warc_record_offset` and
 * `warc_record_length` fetch one record by range. Written with hyparquet-writer (pure JavaScript,
 * snappy-compressed, column statistics on).
 */
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { urlId } from '../url/canonical.js';

export interface Capture {
  urlSurtkey: string;
  url: string;
  urlHostName: string | null;
  /** When it was captured (the CDXJ's 14 digits: to the second). */
  fetchTime: Date;
  fetchStatus: number | null;
  contentMimeType: string | null;
  /** The payload's digest: base32 SHA-1 as Common Crawl writes it, or `sha256:` and base32; a revisit's is the original's. */
  contentDigest: string | null;
  warcFilename: string;
  warcRecordOffset: number;
  warcRecordLength: number;
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
export function capturesOfCdxj(lines: Iterable<string>, changeKind: (runId: number, pageId: string) => string | undefined = () => undefined): Capture[] {
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
    captures.push({
      urlSurtkey: line.slice(0, first),
      url: fields.url,
      urlHostName: web ? new URL(fields.url).hostname : null,
      fetchTime: captureTime(line.slice(first + 1, second)),
      // trawl writes revisits for 304s only (server-not-modified): their block has no status line.
      fetchStatus: fields.status ? Number(fields.status) : type === 'revisit' ? 304 : null,
      contentMimeType: fields.mime?.split(';')[0]?.trim() || null,
      // Common Crawl's form for SHA-1 (32 base32 characters, no prefix); a SHA-256 one says what it is.
      contentDigest: fields.digest ? (fields.digest.length === 32 ? fields.digest : `sha256:${fields.digest}`) : null,
      warcFilename: fields.filename,
      warcRecordOffset: Number(fields.offset),
      warcRecordLength: Number(fields.length),
      warcRecordType: type,
      pageId,
      runId,
      changeKind: (pageId && runId !== null && changeKind(runId, pageId)) || null,
    });
  }
  return captures;
}

/** The Parquet columns, Common Crawl's names first. */
const COLUMNS: Array<[string, keyof Capture, ColumnSource['type']]> = [
  ['url_surtkey', 'urlSurtkey', 'STRING'],
  ['url', 'url', 'STRING'],
  ['url_host_name', 'urlHostName', 'STRING'],
  ['fetch_time', 'fetchTime', 'TIMESTAMP'],
  ['fetch_status', 'fetchStatus', 'INT32'],
  ['content_mime_type', 'contentMimeType', 'STRING'],
  ['content_digest', 'contentDigest', 'STRING'],
  ['warc_filename', 'warcFilename', 'STRING'],
  ['warc_record_offset', 'warcRecordOffset', 'INT64'],
  ['warc_record_length', 'warcRecordLength', 'INT64'],
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
