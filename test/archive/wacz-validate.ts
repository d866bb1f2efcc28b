// A check of every rule of WACZ 1.1.1 a file can break, written from the specification: the zip
// layout, WARC files stored (not deflated), the CDXJ index sorted and pointing at records of the
// URL it names, the pages list, and the datapackage's sizes and hashes with their digest.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import yauzl from 'yauzl';

export interface WaczEntry {
  name: string;
  /** 0: stored, 8: deflated. */
  method: number;
  data: Buffer;
}

export async function readZip(file: string): Promise<Map<string, WaczEntry>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))));
  const entries = new Map<string, WaczEntry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          entries.set(entry.fileName, { name: entry.fileName, method: entry.compressionMethod, data: Buffer.concat(chunks) });
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return entries;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export interface CdxLine {
  key: string;
  ts: string;
  url: string;
  status: string;
  filename: string;
  offset: number;
  length: number;
}

/** Every broken rule, as a sentence; empty when the file conforms. */
export function waczProblems(entries: Map<string, WaczEntry>): { problems: string[]; cdx: CdxLine[]; pages: Array<Record<string, unknown>> } {
  const problems: string[] = [];
  const need = (name: string) => entries.get(name) ?? (problems.push(`${name} is missing`), undefined);
  const names = [...entries.keys()];
  const archives = names.filter((n) => n.startsWith('archive/'));
  if (archives.length === 0) problems.push('archive/ holds no WARC file');
  for (const a of archives) {
    if (!/\.warc(\.gz)?$/.test(a)) problems.push(`${a} is not named .warc or .warc.gz`);
    if (entries.get(a)!.method !== 0) problems.push(`${a} is compressed in the zip: WARC files must be STORED`);
    if (a.endsWith('.gz'))
      try {
        gunzipSync(entries.get(a)!.data);
      } catch (err) {
        problems.push(`${a} does not end on a whole gzip member (${(err as Error).message})`);
      }
  }
  const indexes = names.filter((n) => n.startsWith('indexes/'));
  if (indexes.length === 0) problems.push('indexes/ holds no index');
  for (const n of names)
    if (!['archive/', 'indexes/', 'pages/'].some((d) => n.startsWith(d)) && !['datapackage.json', 'datapackage-digest.json'].includes(n))
      problems.push(`${n} is outside the WACZ layout`);

  // The CDXJ index: `key timestamp {json}`, sorted, each line pointing at a record of its URL.
  const cdx: CdxLine[] = [];
  for (const name of indexes) {
    const entry = entries.get(name)!;
    if (name.endsWith('.gz') && entry.method !== 0) problems.push(`${name} is gzipped and compressed again in the zip`);
    const text = (name.endsWith('.gz') ? gunzipSync(entry.data) : entry.data).toString('utf8');
    const lines = text.split('\n').filter(Boolean);
    const sorted = [...lines].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (lines.join('\n') !== sorted.join('\n')) problems.push(`${name} is not sorted`);
    for (const line of lines) {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      if (!m) {
        problems.push(`${name}: not a CDXJ line: ${line.slice(0, 80)}`);
        continue;
      }
      const j = JSON.parse(m[3]!) as Record<string, string>;
      const c: CdxLine = {
        key: m[1]!,
        ts: m[2]!,
        url: j.url!,
        status: j.status ?? '',
        filename: j.filename!,
        offset: Number(j.offset),
        length: Number(j.length),
      };
      cdx.push(c);
      const warc = entries.get(`archive/${c.filename}`);
      if (!warc) {
        problems.push(`${name}: ${c.url} points at archive/${c.filename}, which is not in the WACZ`);
        continue;
      }
      const slice = warc.data.subarray(c.offset, c.offset + c.length);
      let record = '';
      try {
        record = (c.filename.endsWith('.gz') ? gunzipSync(slice) : slice).toString('latin1');
      } catch {
        problems.push(`${name}: ${c.url} at ${c.offset}+${c.length} is not one gzip member`);
        continue;
      }
      const uri = /\r\nWARC-Target-URI: <?([^\r>]+)>?\r\n/.exec(record)?.[1];
      if (!record.startsWith('WARC/1.')) problems.push(`${name}: ${c.url} at ${c.offset} is not a WARC record`);
      else if (uri !== c.url) problems.push(`${name}: ${c.url} at ${c.offset} is the record of ${uri}`);
    }
  }

  // pages/pages.jsonl: a header, then a url and an RFC 3339 ts on every line.
  const pages: Array<Record<string, unknown>> = [];
  const pagesFile = need('pages/pages.jsonl');
  if (pagesFile) {
    const [header, ...rest] = pagesFile.data.toString('utf8').split('\n').filter(Boolean);
    const h = JSON.parse(header ?? '{}') as Record<string, unknown>;
    if (h.format !== 'json-pages-1.0') problems.push('pages.jsonl does not start with the json-pages-1.0 header');
    for (const line of rest) {
      const p = JSON.parse(line) as Record<string, unknown>;
      pages.push(p);
      if (typeof p.url !== 'string') problems.push(`a page has no url: ${line.slice(0, 80)}`);
      if (typeof p.ts !== 'string' || !RFC3339.test(p.ts)) problems.push(`page ${String(p.url)} has no RFC 3339 ts`);
    }
  }

  // datapackage.json: the profile, the version, and every other file with its size and hash.
  const dp = need('datapackage.json');
  if (dp) {
    const pkg = JSON.parse(dp.data.toString('utf8')) as {
      profile?: string;
      wacz_version?: string;
      created?: string;
      resources?: Array<Record<string, unknown>>;
    };
    if (pkg.profile !== 'data-package') problems.push('datapackage.json: profile is not data-package');
    if (pkg.wacz_version !== '1.1.1') problems.push(`datapackage.json: wacz_version is ${String(pkg.wacz_version)}, not 1.1.1`);
    if (pkg.created !== undefined && !RFC3339.test(pkg.created)) problems.push('datapackage.json: created is not RFC 3339');
    const listed = new Set<string>();
    for (const r of pkg.resources ?? []) {
      const path = String(r.path);
      listed.add(path);
      if (typeof r.name !== 'string' || !/^[-a-z0-9._/]+$/.test(r.name))
        problems.push(`datapackage.json: resource name ${String(r.name)} is not a data package name`);
      const entry = entries.get(path);
      if (!entry) problems.push(`datapackage.json lists ${path}, which is not in the WACZ`);
      else {
        if (r.bytes !== entry.data.length) problems.push(`datapackage.json: ${path} is ${entry.data.length} bytes, not ${String(r.bytes)}`);
        if (r.hash !== sha256(entry.data)) problems.push(`datapackage.json: the hash of ${path} does not match`);
      }
    }
    for (const n of names)
      if (!listed.has(n) && n !== 'datapackage.json' && n !== 'datapackage-digest.json') problems.push(`${n} is not listed in datapackage.json`);
    const digestFile = entries.get('datapackage-digest.json');
    if (digestFile) {
      const d = JSON.parse(digestFile.data.toString('utf8')) as { path?: string; hash?: string };
      if (d.path !== 'datapackage.json') problems.push('datapackage-digest.json: path is not datapackage.json');
      if (d.hash !== sha256(dp.data)) problems.push('datapackage-digest.json: the hash of datapackage.json does not match');
    }
  }
  return { problems, cdx, pages };
}
