import { preflight } from '../fetch/preflight.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../config/resolve.js';
import { DataDirError } from '../errors.js';
import type { EnrichRunResult } from '../pipeline/embedded/enrich-run.js';
import { rebuildFromArchive, warcFilesByRun, type RebuildReport } from '../pipeline/embedded/rebuild.js';
import { enrich } from './enrich.js';
import { ArchiveReplay } from '../archive/replay.js';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { fetcherFor } from '../fetch/http-fetcher.js';
import { extractPage, type PageExtraction } from '../extract/extract-page.js';
import { UsageError } from '../errors.js';
import { buildContext } from '../pipeline/stages/context.js';
import { reextract as reextractStage, type ReextractReport } from '../pipeline/embedded/reextract.js';
import { fetchRobotsTxt } from '../pipeline/stages/robots-stage.js';
import { robotsAllows } from '../robots/robots-policy.js';
import { productToken } from '../robots/robots-txt.js';
import { DataDirLock } from '../store/local/data-lock.js';
import { openLocalForWriting, requireDataDir } from '../store/local/open-local.js';
import { diagnose, moveAside, salvage, type DoctorReport } from '../store/local/sqlite-salvage.js';
import { DB_FILE } from '../store/local/sqlite-store.js';
import { canonicalize } from '../url/canonical.js';
import { settingsOf } from './crawl.js';
import type { CrawlSettingsOptions } from './settings-options.js';

export type { DoctorReport, ReextractReport, RebuildReport };

/**
 * Runs extraction again over every page of a data directory, reading bodies from the archive (no
 * network), stores the new extraction and reports what changed.
 */
export async function reextract(options: CrawlSettingsOptions & { runId?: number } = {}): Promise<ReextractReport> {
  const { runId, ...rest } = options;
  const settings = settingsOf(rest);
  requireDataDir(settings.data);
  const local = openLocalForWriting(settings.data, 'trawl replay --reextract');
  const ctx = buildContext({
    settings,
    store: local.store,
    blobs: local.blobs,
    fetcher: new ArchiveReplay(local.store, settings.data, { runId }),
    // No network: rendered pages are re-extracted from the DOM they kept, nothing is rendered anew.
    rendering: 'none',
  });
  try {
    return await reextractStage(ctx);
  } finally {
    await ctx.close();
    await local.close();
  }
}

/** Checks a data directory's database thoroughly; with `repair`, salvages what can be read into a new file. */
export async function doctor(dataDir = './trawl-data', options: { repair?: boolean } = {}): Promise<DoctorReport> {
  requireDataDir(dataDir);
  const file = join(dataDir, DB_FILE);
  if (!options.repair) return diagnose(file);
  const lock = DataDirLock.acquire(dataDir, 'trawl doctor --repair');
  try {
    return salvage(file);
  } finally {
    lock.release();
  }
}

/** What `rebuild` made: the runs and pages from the archive, where the old file went, and the search index. */
export interface RebuildResult extends RebuildReport {
  file: string;
  /** Where the database that was there is kept (absent when there was none). */
  damaged?: string;
  /** The Summarize and Index pass over the rebuilt pages (absent with `enrich: false`). */
  enriched?: EnrichRunResult;
}

/**
 * A new database from the data directory's WARC files: every archived answer processed again
 * (pages, extraction, links, aliases, fetch history, runs), the runs ranked, and with `enrich`
 * (the default) the search index made again with the configured provider. The database that was
 * there is moved aside as `trawl.db.damaged-<time>`, never deleted. No network.
 */
export async function rebuild(options: CrawlSettingsOptions & { enrich?: boolean; env?: Env } = {}): Promise<RebuildResult> {
  const { enrich: withEnrich = true, env, ...rest } = options;
  const settings = settingsOf(rest);
  const dir = settings.data;
  const warcDir = join(dir, 'warc');
  if (!existsSync(warcDir) || warcFilesByRun(warcDir).size === 0)
    throw new DataDirError(`no WARC files of trawl's in ${warcDir}: there is nothing to rebuild the database from (restore warc/ from a backup)`);
  const file = join(dir, DB_FILE);
  let damaged: string | undefined;
  const lock = DataDirLock.acquire(dir, 'trawl doctor --rebuild');
  try {
    if (existsSync(file)) damaged = moveAside(file, Date.now());
  } finally {
    lock.release();
  }
  const local = openLocalForWriting(dir, 'trawl doctor --rebuild');
  const ctx = buildContext({
    settings,
    store: local.store,
    blobs: local.blobs,
    fetcher: new ArchiveReplay(local.store, dir),
    warcDir,
    rendering: 'none',
  });
  let report: RebuildReport;
  try {
    report = await rebuildFromArchive(ctx, warcDir, local.graph);
  } finally {
    await ctx.close();
    await local.close();
  }
  const enriched = withEnrich ? await enrich({ ...rest, env }) : undefined;
  return { ...report, file, ...(damaged ? { damaged } : {}), ...(enriched ? { enriched } : {}) };
}

/**
 * Fetches one page politely (robots.txt first) and returns its whole extraction; or extracts the
 * given HTML, with no network, when `html` is passed.
 */
export async function extract(url: string, options: CrawlSettingsOptions & { html?: string; xRobotsTag?: string } = {}): Promise<PageExtraction> {
  const { html: given, xRobotsTag: givenTag, ...rest } = options;
  const settings = settingsOf(rest);
  if (!canonicalize(url)) throw new UsageError(`invalid URL ${JSON.stringify(url)}: give an absolute http(s) URL`);
  let html = given;
  let xRobotsTag = givenTag;
  if (html === undefined) {
    await preflight(url, { allowPrivateNetwork: settings.allowPrivateNetwork });
    const fetcher = fetcherFor(settings);
    try {
      const target = new URL(url);
      const { policy } = await fetchRobotsTxt(fetcher, target.origin, productToken(settings.userAgent));
      if (!robotsAllows(policy, target.pathname + target.search))
        throw new UsageError(`robots.txt of ${target.host} does not allow ${url} for ${productToken(settings.userAgent)}: not fetched`);
      const res = await fetcher.fetch({ url, kind: 'page' });
      if (res.status !== 200 || !res.body)
        throw new UsageError(`${url} answered HTTP ${res.status}${res.skipped ? ` with ${res.mime}, which is not HTML` : ''}: nothing to extract`);
      html = decodeBody(res.body, sniffCharset(res.body, res.charset, true));
      xRobotsTag = res.headers['x-robots-tag'];
    } finally {
      await fetcher.close();
    }
  }
  const canonical = { trackingParams: settings.trackingParams, sessionParams: settings.sessionParams };
  return extractPage(html, url, {
    canonicalize: (h) => canonicalize(h, undefined, canonical),
    robotsToken: productToken(settings.userAgent),
    xRobotsTag,
    mainContent: settings.mainContent,
  });
}
