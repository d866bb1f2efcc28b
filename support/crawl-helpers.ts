import { WARCParser } from 'warcio';
import Database from '../shared/store/local/sqlite-driver.js';
import type { Db } from '../shared/store/local/sqlite-types.js';
import { join } from 'node:path';
import { resolveSettings } from '../shared/cli/args.js';
import { crawlCommand } from '../shared/cli/crawl-command.js';
import type { RunSummary } from '../shared/ports/index.js';
import { startWeb, type RequestLogEntry, type SyntheticWeb, type WebMode } from './web/server.js';
import type { WebOptions } from './web/hosts.js';
import { tempDir } from './helpers.js';

/** Runs `fn` with a fresh synthetic web and data directory, and removes both afterwards. */
export async function withWeb(options: Partial<WebOptions>, fn: (web: SyntheticWeb, dataDir: string) => Promise<void>, mode?: WebMode): Promise<void> {
  const web = await startWeb(options, mode);
  const data = tempDir();
  try {
    await fn(web, data.dir);
  } finally {
    await web.close();
    data.cleanup();
  }
}

/** Settings for crawling the synthetic web in tests: loopback allowed, short delays and back-off. */
export function testFlags(data: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { data, 'allow-private-network': true, 'delay-ms': '50', 'backoff-base-ms': '200', 'max-rps': '0', 'max-host-failures': '4', ...extra };
}

export async function crawlWeb(web: SyntheticWeb, flags: Record<string, unknown>, seeds = web.seeds()): Promise<{ summary: RunSummary; lines: string[] }> {
  const lines: string[] = [];
  const summary = await crawlCommand(seeds, resolveSettings(flags, {}), { out: (l) => lines.push(l), json: Boolean(flags.json) });
  return { summary, lines };
}

/** Reads the data directory with plain SQL, as a downstream user would. */
export function openDb(dataDir: string): Db {
  return new Database(join(dataDir, 'trawl.db'), { readonly: true });
}

export function urlState(db: Db, url: string): { state: string; reason: string | null } | undefined {
  return db.prepare('SELECT state, reason FROM frontier WHERE url = ? ORDER BY run_id DESC LIMIT 1').get(url) as
    { state: string; reason: string | null } | undefined;
}

export function requestsBy(log: RequestLogEntry[], host: string): RequestLogEntry[] {
  return log.filter((e) => e.host === host).sort((a, b) => a.start - b.start);
}

/** Smallest gap between the end of one request to a host and the start of the next. */
export function minGap(entries: RequestLogEntry[]): number {
  let min = Infinity;
  for (let i = 1; i < entries.length; i++) min = Math.min(min, entries[i]!.start - entries[i - 1]!.end);
  return min;
}

export function fetchCounts(log: RequestLogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of log) counts.set(`${e.host}${e.target}`, (counts.get(`${e.host}${e.target}`) ?? 0) + 1);
  return counts;
}

/** The WARC-Type of every record in a (gzipped) WARC file's bytes, in order. */
export async function readWarcBytes(bytes: Buffer): Promise<string[]> {
  const types: string[] = [];
  for await (const record of WARCParser.iterRecords([bytes])) {
    await record.readFully(false);
    types.push(record.warcType ?? '');
  }
  return types;
}
