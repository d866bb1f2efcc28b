import { realCalendarDate } from '../util/calendar-date.js';
import type { CrawlSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { createProviders } from '../enrich/provider-factory.js';
import { normalizeTag } from '../enrich/tags.js';
import type { EnrichProgress, EnrichRunResult } from '../pipeline/embedded/enrich-run.js';
import { enrich, searchStores } from '../library/enrich.js';
import type { SearchMode, SearchResult } from '../search/hybrid.js';
import { checkIndex, integrityMarkdown, reconcileIndex, type IntegrityReport, type ReconcileResult } from '../search/integrity.js';
import { openLocalForReading, openLocalForWriting } from '../store/local/open-local.js';
import type { SearchFilters } from '../ports/index.js';
import { counted, jsonLine } from './render.js';

export interface SearchIo {
  out: (line: string) => void;
  /** Rewrites the live progress line (a terminal). */
  status?: (line: string) => void;
  json?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Called with a stop function on Ctrl-C. */
  onSignal?: (stop: () => void) => void;
  /** Where "nothing found" and its hint go (stderr); default: `out`. */
  err?: (line: string) => void;
}

function bar(done: number, total: number, width = 24): string {
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** The enrich progress line: pages, rate, ETA. */
export function enrichProgressLine(p: EnrichProgress): string {
  const eta = p.etaSeconds === undefined ? '--' : `${Math.ceil(p.etaSeconds)} s`;
  return `enrich ${bar(p.done, p.total)} ${p.done}/${p.total} pages  ${p.rate.toFixed(1)} pages/s  ETA ${eta}${p.failed ? `  failed ${p.failed}` : ''}`;
}

export function enrichSummaryText(r: EnrichRunResult): string {
  const lines = [
    // A rate only for work done: an enrichment of nothing in a millisecond is no speed.
    `enriched ${counted(r.enriched, 'page')}, ${r.unchanged} unchanged, ${r.failed} failed, of ${counted(r.candidates, 'searchable page')} (${r.seconds.toFixed(1)} s${r.seconds > 0 && r.enriched > 0 ? `, ${(r.enriched / r.seconds).toFixed(1)} pages/s` : ''})`,
  ];
  if (r.tokens) lines.push(`structured extraction used ${r.tokens.input} input and ${r.tokens.output} output tokens (as the provider counted them)`);
  if (r.retired) lines.push(`${counted(r.retired, 'page')} ${r.retired === 1 ? 'is' : 'are'} no longer searchable (duplicates, noindex) and left the index`);
  if (r.stale && r.mode === 'new')
    lines.push(`${counted(r.stale, 'page')} ${r.stale === 1 ? 'was' : 'were'} enriched with other models or prompts: trawl enrich --stale redoes them`);
  for (const f of r.failures.slice(0, 10)) lines.push(`  failed ${f.url} (${f.stage}): ${f.error}`);
  if (r.failures.length > 10) lines.push(`  … ${r.failures.length - 10} more in the dead-letter list (trawl enrich retries them)`);
  return lines.join('\n');
}

/** `trawl enrich [--stale]`: the library's `enrich` with a progress bar and a summary. */
export async function enrichCommand(settings: CrawlSettings, stale: boolean, io: SearchIo): Promise<EnrichRunResult> {
  const abort = new AbortController();
  io.onSignal?.(() => abort.abort());
  const result = await enrich({ ...settings, stale, env: io.env ?? {}, signal: abort.signal, onProgress: (p) => io.status?.(enrichProgressLine(p)) });
  io.status?.('');
  io.out(io.json ? jsonLine({ type: 'enrich', ...result }) : enrichSummaryText(result));
  if (result.stopped && !io.json) io.out('stopped: what was enriched is kept and the data directory is free; trawl enrich goes on with the rest');
  return result;
}

/** `trawl enrich`'s exit code: 130 when a signal stopped it, 1 when every page it tried failed, else 0. */
export function enrichExitCode(result: EnrichRunResult): number {
  if (result.stopped) return 130;
  return result.failed > 0 && result.enriched === 0 ? 1 : 0;
}

export interface SearchFlags {
  tag?: string[];
  domain?: string;
  lang?: string;
  since?: string;
  until?: string;
  limit?: string;
  mode?: string;
}

const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

/** The filters of `trawl search`, checked: each bad value is named with what to write. */
export function searchFilters(flags: SearchFlags): SearchFilters {
  const tags = (flags.tag ?? []).map((t) => {
    const tag = normalizeTag(t);
    if (!tag)
      throw new UsageError(
        `invalid value ${JSON.stringify(t)} for --tag: expected a topic tag such as #index-funds (site furniture like #home is never a tag)`,
      );
    return tag;
  });
  for (const [flag, value] of [
    ['since', flags.since],
    ['until', flags.until],
  ] as const) {
    if (value !== undefined && !ISO_DATE.test(value))
      throw new UsageError(`invalid value ${JSON.stringify(value)} for --${flag}: expected a date as YYYY, YYYY-MM or YYYY-MM-DD`);
    if (value !== undefined && !realCalendarDate(value))
      throw new UsageError(`invalid value ${JSON.stringify(value)} for --${flag}: no such day in the calendar; expected a date as YYYY, YYYY-MM or YYYY-MM-DD`);
  }
  if (flags.lang !== undefined && !/^[a-z]{2,3}(-[a-z0-9]+)*$/i.test(flags.lang))
    throw new UsageError(`invalid value ${JSON.stringify(flags.lang)} for --lang: expected a language code such as en or pt-BR`);
  if (flags.domain !== undefined && !/^[a-z0-9.-]+(:\d+)?$/i.test(flags.domain))
    throw new UsageError(`invalid value ${JSON.stringify(flags.domain)} for --domain: expected a host name such as example.com`);
  return { tags, domain: flags.domain, language: flags.lang, since: flags.since, until: flags.until };
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 10;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new UsageError(`invalid value ${JSON.stringify(raw)} for --limit: expected a whole number from 1 to 200`);
  return n;
}

function parseMode(raw: string | undefined): SearchMode {
  if (raw === undefined) return 'hybrid';
  if (raw === 'hybrid' || raw === 'text' || raw === 'vector') return raw;
  throw new UsageError(`invalid value ${JSON.stringify(raw)} for --mode: expected hybrid, text or vector`);
}

/** The people-facing form of one hit. */
function hitText(h: SearchResult['hits'][number]): string[] {
  const why = [
    h.why.terms.length ? `terms ${h.why.terms.join(', ')}` : undefined,
    h.why.textRank ? `text #${h.why.textRank}` : undefined,
    h.why.vectorRank ? `vector #${h.why.vectorRank} (similarity ${h.why.similarity})` : undefined,
    `fused ${h.why.fused.toFixed(4)}`,
    h.why.listing !== undefined ? `reads as a listing (${h.why.listing}): ranked below what it lists` : undefined,
  ].filter(Boolean);
  const lines = [`${h.rank}. ${h.title || '(no title)'}`, `   ${h.url}`, `   ${h.summary.length > 300 ? `${h.summary.slice(0, 297)}…` : h.summary}`];
  if (h.tags.length) lines.push(`   ${h.tags.join(' ')}`);
  if (h.inlinks.length) lines.push(`   linked as: ${h.inlinks.map((l) => `"${l.anchor}"${l.count > 1 ? ` ×${l.count}` : ''}`).join(', ')}`);
  lines.push(`   why: ${why.join('; ')}`);
  return lines;
}

/** `trawl search "<query>"`: hybrid search over an enriched crawl. */
export async function searchCommand(settings: CrawlSettings, positionals: string[], flags: SearchFlags, io: SearchIo): Promise<SearchResult> {
  const q = positionals.join(' ').trim();
  if (!q) throw new UsageError('trawl search needs a query: trawl search "compost heap" [--tag T] [--domain D] [--limit N]');
  const filters = searchFilters(flags);
  const limit = parseLimit(flags.limit);
  const mode = parseMode(flags.mode);
  const local = openLocalForReading(settings.data);
  try {
    const result = await searchStores(local, q, { ...filters, limit, mode, settings, env: io.env ?? {} });
    if (io.json) {
      for (const h of result.hits) io.out(jsonLine({ type: 'hit', ...h }));
      io.out(
        jsonLine({
          type: 'search',
          query: q,
          mode,
          hits: result.hits.length,
          textMatches: result.textMatches,
          vectorMatches: result.vectorMatches,
          tookMs: result.tookMs,
        }),
      );
      return result;
    }
    if (result.hits.length === 0) {
      const indexed = (await local.enrich.enrichments('', 1)).length > 0;
      (io.err ?? io.out)(
        indexed ? `no page matches "${q}"` : `no page of ${settings.data} is indexed yet: run trawl enrich --data ${settings.data} (or crawl with --enrich)`,
      );
      return result;
    }
    for (const h of result.hits) io.out(hitText(h).join('\n'));
    if (mode !== 'text' && result.vectorMatches === 0) {
      io.out(
        `no vector matched: the pages were embedded with another model than this search's; pass the --provider and --embed-* flags trawl enrich used (trawl index --check shows them)`,
      );
    }
    io.out(
      `${result.hits.length} hits for "${q}" (${mode}; ${result.textMatches} full-text and ${result.vectorMatches} vector matches fused) in ${result.tookMs} ms`,
    );
    return result;
  } finally {
    await local.close();
  }
}

/** `trawl index --check | --reconcile`: compares the store with the vector index, writes the JSON and Markdown reports, repairs on request. */
export async function indexCommand(
  settings: CrawlSettings,
  flags: { check?: boolean; reconcile?: boolean },
  io: SearchIo,
): Promise<{ report: IntegrityReport; repaired?: ReconcileResult; after?: IntegrityReport }> {
  if (!flags.check === !flags.reconcile) throw new UsageError('trawl index needs exactly one of --check (report only) or --reconcile (report and repair)');
  const local = flags.reconcile ? openLocalForWriting(settings.data, 'index') : openLocalForReading(settings.data);
  try {
    const providers = createProviders(settings, io.env);
    const report = await checkIndex(local.enrich, local.vectors, providers.embedder.stamp);
    const name = `index-check-${report.checkedAt.replace(/[:.]/g, '-')}`;
    let repaired: ReconcileResult | undefined;
    let after: IntegrityReport | undefined;
    if (flags.reconcile && !report.ok) {
      repaired = await reconcileIndex({ enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now }, report);
      after = await checkIndex(local.enrich, local.vectors, providers.embedder.stamp);
    }
    // A reader cannot write reports into the data directory of a running crawl; the check goes to stdout either way.
    const keys = flags.reconcile
      ? [await local.objects.putReport(name, { ...report, repaired, after }), await local.objects.putMarkdownReport(name, integrityMarkdown(report))]
      : await writeReadOnly(local.objects, name, report);
    if (io.json) io.out(jsonLine({ type: 'index-check', ...report, repaired, after, reports: keys }));
    else {
      io.out(integrityMarkdown(report).trimEnd());
      if (repaired)
        io.out(
          `\nrepaired: ${repaired.reembedded} embedded again, ${repaired.deleted} deleted, ${repaired.failed} failed; now ${after?.ok ? 'consistent' : 'still different (see the report)'}`,
        );
      if (keys.length) io.out(`\nreports: ${keys.map((k) => `${settings.data}/${k}`).join(', ')}`);
    }
    return { report, repaired, after };
  } finally {
    await local.close();
  }
}

async function writeReadOnly(
  objects: { putReport(n: string, d: unknown): Promise<string>; putMarkdownReport(n: string, t: string): Promise<string> },
  name: string,
  report: IntegrityReport,
): Promise<string[]> {
  try {
    return [await objects.putReport(name, report), await objects.putMarkdownReport(name, integrityMarkdown(report))];
  } catch {
    return [];
  }
}
