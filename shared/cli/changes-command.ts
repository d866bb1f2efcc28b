import { realCalendarDate } from '../util/calendar-date.js';
import { UsageError } from '../errors.js';
import { CHANGE_KINDS, type ChangeKind } from '../config/change-kinds.js';
import { diffText } from '../changes/text-diff.js';
import { didYouMean } from './usage.js';
import { jsonLine, changeCountsText } from './render.js';
import type { ChangeQuery, ChangeRecord } from '../ports/index.js';
import { openStore, type TrawlStore } from '../library/store.js';

export interface ChangesFlags {
  run?: string;
  since?: string;
  kind?: string[];
  path?: string[];
  diff?: boolean;
  limit?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The query `trawl changes` flags ask for, checked: each bad value is named with what to write. */
export function changeQuery(flags: ChangesFlags): ChangeQuery {
  const query: ChangeQuery = {};
  if (flags.run !== undefined && flags.since !== undefined) throw new UsageError('--run and --since both choose runs: pass one of them');
  if (flags.run !== undefined) {
    const n = Number(flags.run);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(`invalid value ${JSON.stringify(flags.run)} for --run: expected a run number (trawl status lists them)`);
    query.runId = n;
  }
  if (flags.since !== undefined) {
    const at = DATE.test(flags.since) ? Date.parse(flags.since) : NaN;
    if (Number.isNaN(at)) throw new UsageError(`invalid value ${JSON.stringify(flags.since)} for --since: expected a date as YYYY-MM-DD or an ISO time`);
    if (!realCalendarDate(flags.since))
      throw new UsageError(
        `invalid value ${JSON.stringify(flags.since)} for --since: no such day in the calendar; expected a date as YYYY-MM-DD or an ISO time`,
      );
    query.since = at;
  }
  const kinds = (flags.kind ?? []).flatMap((k) => k.split(',')).map((k) => k.trim());
  for (const k of kinds)
    if (!(CHANGE_KINDS as readonly string[]).includes(k))
      throw new UsageError(`invalid value ${JSON.stringify(k)} for --kind${didYouMean(k, CHANGE_KINDS)}: expected one of ${CHANGE_KINDS.join(', ')}`);
  if (kinds.length) query.kinds = kinds as ChangeKind[];
  for (const p of flags.path ?? []) if (!p.startsWith('/')) throw new UsageError(`invalid value ${JSON.stringify(p)} for --path: a path prefix starts with /`);
  if (flags.path?.length) query.paths = flags.path;
  if (flags.limit !== undefined) {
    const n = Number(flags.limit);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`invalid value ${JSON.stringify(flags.limit)} for --limit: expected a whole number of at least 1`);
    query.limit = n;
  }
  return query;
}

/** One change as a line: its kind, URL, title and what it measured. */
export function changeLine(c: ChangeRecord): string {
  const what: string[] = [];
  if (c.measure) {
    const m = c.measure;
    what.push(`${Math.round(m.blocksChanged * 100)} % of text blocks (+${m.blocksAdded} −${m.blocksRemoved}), SimHash distance ${m.simhashDistance}`);
    if (m.fieldsChanged.length) what.push(`fields: ${m.fieldsChanged.join(', ')}`);
  }
  if (c.removedBy) what.push(c.removedBy === 'unlinked' ? 'no page links it any more, and asking for it got no page' : `answered ${c.removedBy}`);
  if (c.linkedFrom) what.push(`now linked from ${c.linkedFrom.join(', ')}`);
  if (c.unlinkedFrom) what.push(`no longer linked from ${c.unlinkedFrom.join(', ')}`);
  if (c.rank)
    what.push(`inlinks ${c.rank.inlinksBefore} → ${c.rank.inlinksAfter}, PageRank ${c.rank.pagerankBefore.toFixed(4)} → ${c.rank.pagerankAfter.toFixed(4)}`);
  const title = c.title ? `  "${c.title}"` : '';
  return `${c.kind.padEnd(12)}  ${c.url}${title}${what.length ? `  ${what.join('; ')}` : ''}`;
}

/** `trawl changes`: what changed in a run (default: the latest) since the run before. */
export async function changesCommand(dataDir: string, flags: ChangesFlags, json: boolean, out: (line: string) => void): Promise<void> {
  const query = changeQuery(flags);
  const store: TrawlStore = openStore(dataDir);
  try {
    const changes = await store.changes(query);
    if (changes.length === 0) {
      const runs = await store.runs();
      const why =
        runs.length < 2 && query.since === undefined
          ? 'a data directory’s first crawl has nothing to compare with: crawl again with the same seeds to see what changed'
          : 'no change of the kinds asked for (unchanged pages are listed with --kind unchanged)';
      out(json ? jsonLine({ type: 'no-changes', note: why }) : `no changes: ${why}`);
      return;
    }
    let run: number | undefined;
    for (const c of changes) {
      const texts = flags.diff && c.kind === 'changed' ? await store.changeDiff(c.runId, c.url) : undefined;
      if (json) {
        out(jsonLine({ type: 'change', ...c, ...(texts ? { diff: texts } : {}) }));
        continue;
      }
      if (c.runId !== run) {
        run = c.runId;
        const counts: Partial<Record<ChangeKind, number>> = {};
        for (const x of changes) if (x.runId === run) counts[x.kind] = (counts[x.kind] ?? 0) + 1;
        out(`run ${run}${c.previousRunId ? ` against run ${c.previousRunId}` : ''}: ${changeCountsText(counts)}`);
      }
      out(changeLine(c));
      if (texts) out(`    ${diffText(texts).replace(/\n/g, '\n    ')}`);
    }
  } finally {
    await store.close();
  }
}
