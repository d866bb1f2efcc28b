/**
 * WACZ 1.1.1 (Web Archive Collection Zipped), the package ReplayWeb.page and pywb open: the WARC
 * files stored as they are under `archive/`, a sorted CDXJ index of them (warcio's indexer) under
 * `indexes/`, the pages with their titles and text under `pages/`, and a `datapackage.json` with
 * every file's size and SHA-256, itself hashed in `datapackage-digest.json`. The zip is yazl's,
 * written as a stream: the WARC files are read twice (index and hash, then the zip), never whole.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rekeyCdxjLine } from './surt.js';
import { CDXAndRecordIndexer } from 'warcio';
import { detailsOf, type RecordDetails } from './capture-index.js';
import yazl from 'yazl';

export const WACZ_VERSION = '1.1.1';

export interface WaczPage {
  url: string;
  /** When the page's response was archived (ms since the epoch). */
  ts: number;
  title?: string;
  /** Its extracted text, for full-text search in replay tools. */
  text?: string;
  id?: string;
}

/** One WARC file to package, wherever it is: read twice (index and hash, then the zip), never whole. */
export interface WarcSource {
  /** Its file name (unique in the package). */
  name: string;
  /** Its size in bytes. */
  size: number;
  /** A new stream of its bytes. */
  open(): Readable;
}

/**
 * A WARC file on disk as a source: its first `size` bytes (default: the whole file as it is now),
 * so a file a crawl still appends to is read as it stood.
 */
export function warcFileSource(path: string, size = statSync(path).size): WarcSource {
  return { name: basename(path), size, open: () => (size === 0 ? Readable.from([]) : createReadStream(path, { start: 0, end: size - 1 })) };
}

export interface WaczInput {
  /** The WARC files to package (each name must be unique): paths, or sources (S3 objects). */
  warcFiles: Array<string | WarcSource>;
  pages: Iterable<WaczPage> | AsyncIterable<WaczPage>;
  title: string;
  description?: string;
  software: string;
  mainPageUrl?: string;
  /** The time the WACZ says it was made; default: now. */
  created?: Date;
  /**
   * Told the package's CDXJ lines, sorted, once they are made, with what the CDXJ leaves out of each
   * record (a capture index is built from them).
   */
  indexed?: (lines: readonly string[], details: ReadonlyMap<string, RecordDetails>) => void | Promise<void>;
}

export interface WaczResult {
  /** CDXJ lines in the index. */
  records: number;
  pages: number;
  warcFiles: number;
}

interface Resource {
  name: string;
  path: string;
  hash: string;
  bytes: number;
}

const sha256 = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** Indexes one WARC file with warcio's CDXJ indexer while hashing it, in one read. */
async function indexWarc(source: WarcSource, lines: string[], details?: Map<string, RecordDetails>): Promise<Resource> {
  const { name } = source;
  const hash = createHash('sha256');
  let bytes = 0;
  async function* hashed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source.open() as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
  }
  const indexer = new CDXAndRecordIndexer({ format: 'cdxj' });
  for await (const { cdx, record } of indexer.iterIndex([{ filename: name, reader: hashed() }])) {
    if (details) details.set(`${name} ${String(cdx.offset)}`, detailsOf(record));
    // warcio keys a line by its own SURT (a path's trailing slash kept); pywb and py-wacz look it up by the Internet Archive's.
    lines.push(rekeyCdxjLine(indexer.serializeCDXJ(cdx).trimEnd()));
  }
  // A data package's resource names are lower case (the path keeps the file's own name).
  return { name: name.toLowerCase(), path: `archive/${name}`, hash: `sha256:${hash.digest('hex')}`, bytes };
}

/** CDXJ is sorted by its key and time, byte for byte (the keys are ASCII: SURTs are percent-encoded). */
function sortCdxj(lines: string[]): void {
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The sorted CDXJ lines of WARC files, as a WACZ's index holds them; `details` gets what the lines leave out, by file and offset. */
export async function cdxjIndex(warcFiles: Array<string | WarcSource>, details?: Map<string, RecordDetails>): Promise<string[]> {
  const lines: string[] = [];
  for (const f of warcFiles) await indexWarc(typeof f === 'string' ? warcFileSource(f) : f, lines, details);
  sortCdxj(lines);
  return lines;
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Writes the WACZ of `input` to `out`; resolves once the last byte is written. */
export async function writeWacz(input: WaczInput, out: Writable): Promise<WaczResult> {
  const sources = input.warcFiles.map((f) => (typeof f === 'string' ? warcFileSource(f) : f));
  const names = new Set<string>();
  for (const { name } of sources) {
    if (names.has(name)) throw new Error(`two WARC files are named ${name}: a WACZ keeps one archive/ directory`);
    names.add(name);
  }
  const lines: string[] = [];
  const archives: Resource[] = [];
  const details = input.indexed ? new Map<string, RecordDetails>() : undefined;
  for (const source of sources) archives.push(await indexWarc(source, lines, details));
  sortCdxj(lines);
  await input.indexed?.(lines, details!);
  const index = Buffer.from(lines.length ? `${lines.join('\n')}\n` : '');

  const pageLines = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true })];
  for await (const p of input.pages) {
    pageLines.push(
      JSON.stringify({
        id: p.id ?? createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 16),
        url: p.url,
        ts: isoSeconds(p.ts),
        ...(p.title ? { title: p.title } : {}),
        ...(p.text ? { text: p.text } : {}),
      }),
    );
  }
  const pages = Buffer.from(`${pageLines.join('\n')}\n`);

  const created = isoSeconds((input.created ?? new Date()).getTime());
  const resources: Resource[] = [
    { name: 'pages.jsonl', path: 'pages/pages.jsonl', hash: sha256(pages), bytes: pages.length },
    { name: 'index.cdx', path: 'indexes/index.cdx', hash: sha256(index), bytes: index.length },
    ...archives,
  ];
  const datapackage = Buffer.from(
    JSON.stringify(
      {
        profile: 'data-package',
        wacz_version: WACZ_VERSION,
        title: input.title,
        ...(input.description ? { description: input.description } : {}),
        created,
        modified: created,
        software: input.software,
        ...(input.mainPageUrl ? { mainPageUrl: input.mainPageUrl } : {}),
        resources,
      },
      null,
      2,
    ),
  );
  const digest = Buffer.from(JSON.stringify({ path: 'datapackage.json', hash: sha256(datapackage) }, null, 2));

  const zip = new yazl.ZipFile();
  // yazl reports a source that broke off (or grew past its size) on the zip itself, not its stream.
  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  const done = Promise.race([pipeline(zip.outputStream, out), failed]);
  // Already compressed (and read by range): the WARC files are STORED, never deflated again.
  for (const [i, source] of sources.entries())
    zip.addReadStreamLazy(archives[i]!.path, { compress: false, size: source.size }, (cb) => cb(null, source.open()));
  zip.addBuffer(index, 'indexes/index.cdx', { compress: true });
  zip.addBuffer(pages, 'pages/pages.jsonl', { compress: true });
  zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
  zip.addBuffer(digest, 'datapackage-digest.json', { compress: true });
  zip.end();
  await done;
  return { records: lines.length, pages: pageLines.length - 1, warcFiles: archives.length };
}
