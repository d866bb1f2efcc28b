// A run's end spread over its shards: the run machine's finalize states (FinalizeStart, then one
// Distributed Map per ranking phase over the run's shards, the ranking rounds until they converge,
// then FinalizeRun) each call one of these in a Lambda of their own, every child bounded by its
// shard (and a chunk of it), the phases' hand-over in S3 (`finalize/run-<id>/`). See
// shared/graph/sharded-rank.ts for the phases.
import { Readable } from 'node:stream';
import { MAX_INLINK_SOURCES, ShardedRank, type RankChunk, type RankedShardPage, type RankScratch } from '../../graph/sharded-rank.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import { CHANGE_KINDS, type ChangeKind, type ChangeRecord, type ObjectStore, type RankedPage, type UrlReason } from '../../ports/index.js';
import { monitorOf, told } from '../../changes/monitor.js';
import { runSettings } from './cloud-context.js';
import type { CloudDeps } from './cloud-context.js';
import { planWaczParts, writeWaczPart, type PartChanges } from './run-wacz.js';

/** What the end of a run needs of the run loop's state (run-control's ProgressState, with a Catch's error). */
interface EndingState {
  runId: number;
  reason: string;
  error?: { Error?: string; Cause?: string };
}

/** Pages one collect step reads at most (with their links): its time and memory stay the same whatever the run's size. */
export const FINALIZE_CHUNK_PAGES = 1000;

/** What a run's ranking reads from and writes to its store (DynamoDB: DynamoRanks). */
export interface RankStore {
  /** The run's shards and the shard of a URL id in it. */
  sharding(runId: number): Promise<{ shards: number; shardOf: (id: string) => number }>;
  /** The pages among these settled-as-done URL ids, their aliases and their links' targets. */
  chunkOf(ids: string[]): Promise<RankChunk>;
  /** A shard's ranks onto its pages (with their inlinks and rank-shift changes); returns its top pages. */
  writeShard(runId: number, ranked: RankedShardPage[]): Promise<RankedPage[]>;
  /** The run's top pages, from its shards' tops. */
  writeTop(runId: number, pages: RankedPage[]): Promise<void>;
}

/** One shard's fetched pages a page at a time (DynamoDB: the frontier index's `D#<run>#<shard>` partition). */
export interface ShardPages {
  donePages(runId: number, shard: number, limit: number, cursor?: string): Promise<{ ids: string[]; cursor?: string }>;
}

export type FinalizeDeps = CloudDeps & { ranks: RankStore; urls: ShardPages };

/** What FinalizeStart hands the finalize states (at `$.finalize`). */
export interface FinalizePlan {
  /** The run's shards, one Map item each. */
  shards: number[];
  /** How queued URLs were settled (`skipped` with this reason, in the run's counters); empty: left queued (a stopped run resumes them). */
  settle: UrlReason | '';
  /** The run's status once it ends. */
  status: 'finished' | 'interrupted' | 'failed';
  /**
   * The run is ranked shard by shard in the machine's Distributed Maps; otherwise (a run of at most
   * `FINALIZE_SPREAD_PAGES` pages) FinalizeRun ranks it alone, in bounded memory, without the maps'
   * start-up time.
   */
  spread: boolean;
  /** The run's archive in parts, one Map item each (a spread run; none without WARC files or WACZ). */
  parts: number[];
  /** The partitions of the run's changes, one Map item each (a spread run whose store records changes). */
  changeShards: number[];
  /** The ranking round run last (0: none yet), or the final one once `done`. */
  round: number;
  /** Each shard's L1 change of its pages' ranks in the round run last (the rank Map's answers). */
  deltas: number[];
  done: boolean;
}

/** Pages a WriteShard call writes (a PAGE update each, WIDTH at once): about a minute of Lambda time. */
export const WRITE_CHUNK_PAGES = 20_000;

/** Runs of at most this many stored pages are ranked by FinalizeRun alone (`TRAWL_FINALIZE_SPREAD_PAGES` on its function). */
export const FINALIZE_SPREAD_PAGES = 20_000;

export type FinalizeEvent =
  | { action: 'finalize-start'; state: EndingState }
  | {
      action: 'collect';
      runId: number;
      shard: number;
      cursor?: string;
      chunk?: number;
      base?: number;
      /** Pages a step reads (default FINALIZE_CHUNK_PAGES). */
      limit?: number;
    }
  | { action: 'gather' | 'link' | 'degrees'; runId: number; shard: number; counts?: number[] }
  | { action: 'rank'; runId: number; shard: number; round: number; counts?: number[] }
  | { action: 'rank-check'; runId: number; finalize: FinalizePlan & { collected?: { counts: number[] } } }
  | {
      action: 'write';
      runId: number;
      shard: number;
      round: number;
      counts?: number[];
      /** The first page of the shard this call writes (the step's cursor), and how many (default WRITE_CHUNK_PAGES). */
      cursor?: string;
      limit?: number;
    }
  | { action: 'package'; runId: number; part: number; crawl: string }
  | { action: 'changes'; runId: number; shard: number; crawl: string; status: FinalizePlan['status'] };

/** What the run's end reads of the store's changes a partition at a time (DynamoDB: DynamoChanges). */
export interface ChangeShards {
  /** The partitions of a run's changes, numbered from 0. */
  readonly changeShards: number;
  /** Decides the partition's link kinds; returns its changes counted by kind. */
  finishShard(runId: number, shard: number, now?: number): Promise<Partial<Record<ChangeKind, number>>>;
  ofShard(runId: number, shard: number): Promise<ChangeRecord[]>;
}

const changeShardsOf = (changes: unknown): ChangeShards | undefined =>
  changes && typeof (changes as ChangeShards).finishShard === 'function' ? (changes as ChangeShards) : undefined;

/** The run's status from how its loop ended. */
export function endStatus(state: EndingState): FinalizePlan['status'] {
  return state.error ? 'failed' : state.reason === 'stopped' ? 'interrupted' : 'finished';
}

/** How a run's queued URLs are settled at its end: a finished run leaves nothing queued, a stopped one keeps its queue. */
export function settleReason(state: EndingState): UrlReason | '' {
  if (!state.error && state.reason === 'stopped') return '';
  return state.error ? 'run-failed' : state.reason === 'budget' ? 'max-pages' : 'host-too-slow';
}

/** The ranking's hand-over in the bucket, under the run's finalize prefix (expired by the bucket's lifecycle). */
export function objectScratch(objects: ObjectStore, runId: number): RankScratch {
  const prefix = `${archiveKeys.finalizeScratch(runId)}rank/`;
  return {
    put: (key, body) => objects.putStream(prefix + key, Readable.from([body]), 'application/octet-stream'),
    get: (key) => objects.get(prefix + key),
    list: async (p) => (await objects.list(prefix + p)).map((o) => o.key.slice(prefix.length)),
  };
}

async function ranking(deps: FinalizeDeps, runId: number, counts?: number[]): Promise<ShardedRank> {
  const { shards, shardOf } = await deps.ranks.sharding(runId);
  return new ShardedRank(objectScratch(deps.objects, runId), shards, shardOf, counts);
}

const topKey = (shard: number) => `${String(shard).padStart(5, '0')}`;

/** FinalizeStart: the run stops (its workers drop what is still queued), and the plan of its end. */
export async function finalizeStart(
  deps: FinalizeDeps,
  state: EndingState,
  options: { spreadPages?: number; waczPartFiles?: number } = {},
): Promise<FinalizePlan> {
  const spreadPages = options.spreadPages ?? FINALIZE_SPREAD_PAGES;
  const status = endStatus(state);
  await deps.store.setRunStatus(state.runId, status, (deps.clock ?? Date.now)());
  // What is left queued settles in the run's counters, one write whatever the number of URLs.
  const settle = settleReason(state);
  if (settle) await deps.store.settleQueued(state.runId, settle);
  const { shards } = await deps.ranks.sharding(state.runId);
  const { pagesStored } = await deps.store.summary(state.runId);
  const spread = pagesStored > spreadPages;
  // The workers have stopped: the run's WARC files are all written, and grouped into parts here.
  const run = spread && deps.archivedPages ? await deps.store.getRun(state.runId) : undefined;
  const span = run && { from: run.startedAt, to: (deps.clock ?? Date.now)() };
  const parts = spread && deps.archivedPages ? await planWaczParts(deps.objects, state.runId, options.waczPartFiles, undefined, span) : 0;
  return {
    shards: Array.from({ length: shards }, (_, k) => k),
    settle,
    status,
    spread,
    parts: Array.from({ length: parts }, (_, k) => k),
    changeShards: spread ? Array.from({ length: changeShardsOf(deps.changes)?.changeShards ?? 0 }, (_, k) => k) : [],
    round: 0,
    deltas: [],
    done: false,
  };
}

/** One finalize step of one shard (or the rounds' check); the answer is the next step's input where it loops. */
export async function finalizeStep(deps: FinalizeDeps, event: Exclude<FinalizeEvent, { action: 'finalize-start' }>): Promise<unknown> {
  if (event.action === 'package') return packagePart(deps, event);
  if (event.action === 'changes') return changeShard(deps, event);
  // Each shard's pages, as the collect Map answered them (else read from the scratch).
  const counts = 'counts' in event ? event.counts : event.action === 'rank-check' ? event.finalize.collected?.counts : undefined;
  const rank = await ranking(deps, event.runId, counts);
  switch (event.action) {
    case 'collect': {
      const page = await deps.urls.donePages(event.runId, event.shard, event.limit ?? FINALIZE_CHUNK_PAGES, event.cursor);
      const chunk = await deps.ranks.chunkOf(page.ids);
      const index = event.chunk ?? 0;
      const base = event.base ?? 0;
      await rank.collect(event.shard, index, base, chunk);
      const { cursor: _cursor, ...rest } = event;
      const next = { ...rest, chunk: index + 1, base: base + chunk.pages.length };
      if (page.cursor) return { ...next, cursor: page.cursor };
      await rank.collected(event.shard, next.base);
      return next;
    }
    case 'gather':
      await rank.gather(event.shard);
      return { shard: event.shard };
    case 'link':
      await rank.link(event.shard);
      return { shard: event.shard };
    case 'degrees':
      await rank.degrees(event.shard);
      return { shard: event.shard };
    case 'rank':
      return rank.round(event.round, event.shard);
    case 'rank-check': {
      // After the round run last (none yet: 0): over, or the shares of rank the next one reads.
      const last = event.finalize.round;
      if (last === 0 ? (await rank.pages()) === 0 : ShardedRank.converged(last, event.finalize.deltas)) return { ...event.finalize, deltas: [], done: true };
      await rank.merge(last);
      return { ...event.finalize, deltas: [], round: last + 1 };
    }
    case 'write': {
      // A slice of the shard a call (the step loops while it answers a cursor): no call nears Lambda's 15 minutes.
      const from = Number(event.cursor ?? 0);
      const slice = await rank.resultSlice(event.shard, event.round, MAX_INLINK_SOURCES, from, event.limit ?? WRITE_CHUNK_PAGES);
      const top = await deps.ranks.writeShard(event.runId, slice.pages);
      await objectScratch(deps.objects, event.runId).put(
        `top/${topKey(event.shard)}-${topKey(from / (event.limit ?? WRITE_CHUNK_PAGES))}`,
        Buffer.from(JSON.stringify(top)),
      );
      const { cursor: _cursor, ...rest } = event;
      const next = from + slice.pages.length;
      return next < slice.total ? { ...rest, cursor: String(next) } : { shard: event.shard, top: top.length };
    }
  }
}

/**
 * One partition of the run's changes (the ChangeShards map's child, after the ranks): its link
 * kinds decided, and the changes the crawl's monitor tells put on the bus, one event each, before
 * FinalizeRun puts the run's end. Returns the partition's changes by kind.
 */
async function changeShard(
  deps: FinalizeDeps,
  event: { runId: number; shard: number; crawl: string; status: FinalizePlan['status'] },
): Promise<Partial<Record<ChangeKind, number>>> {
  const changes = changeShardsOf(deps.changes);
  if (!changes) return {};
  const counts = await changes.finishShard(event.runId, event.shard, (deps.clock ?? Date.now)());
  const run = deps.events && event.status === 'finished' && Object.keys(counts).length ? await deps.store.getRun(event.runId) : undefined;
  if (run && deps.events) {
    const monitor = monitorOf(runSettings(run));
    const tell = (await changes.ofShard(event.runId, event.shard)).filter((c) => told(monitor, c));
    if (tell.length) await deps.events.put(tell.map((c) => ({ type: 'trawl.page.changed', detail: { crawl: event.crawl, ...c } })));
  }
  return counts;
}

/** The run's changes by kind, summed over the ChangeShards map's answers. */
export function summedChanges(shards: ReadonlyArray<Partial<Record<ChangeKind, number>>>): Partial<Record<ChangeKind, number>> {
  const sum: Partial<Record<ChangeKind, number>> = {};
  for (const counts of shards) for (const [kind, n] of Object.entries(counts)) sum[kind as ChangeKind] = (sum[kind as ChangeKind] ?? 0) + (n ?? 0);
  return Object.fromEntries(CHANGE_KINDS.filter((k) => sum[k]).map((k) => [k, sum[k]]));
}

/** One part of the run's archive (the PackageParts map's child). */
async function packagePart(deps: FinalizeDeps, event: { runId: number; part: number; crawl: string }): Promise<unknown> {
  const pages = deps.archivedPages;
  if (!pages?.archivedPagesOf) throw new Error('packaging a part of a run needs the store’s archived pages by URL id');
  const run = await deps.store.getRun(event.runId);
  if (!run) throw new Error(`run ${event.runId} is not in the table`);
  const changes = deps.changes && 'contentKinds' in deps.changes ? (deps.changes as unknown as PartChanges) : undefined;
  const part = await writeWaczPart(
    { objects: deps.objects, pages: { archivedPagesOf: pages.archivedPagesOf.bind(pages) }, changes },
    run,
    event.crawl,
    event.part,
  );
  return { part: event.part, bytes: part.bytes, records: part.records };
}

/** FinalizeRun after the shards' steps: the run's top pages from its shards' tops; returns the pages ranked. */
export async function finishRanks(deps: FinalizeDeps, runId: number): Promise<number> {
  const scratch = objectScratch(deps.objects, runId);
  const top: RankedPage[] = [];
  for (const key of await scratch.list('top/')) top.push(...(JSON.parse((await scratch.get(key))!.toString()) as RankedPage[]));
  await deps.ranks.writeTop(runId, top);
  let pages = 0;
  for (const key of await scratch.list('count/')) pages += (JSON.parse((await scratch.get(key))!.toString()) as { pages: number }).pages;
  return pages;
}
