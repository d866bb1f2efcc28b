/**
 * Changes between runs on the DynamoDB store: captured as each fetch commits (before its writes
 * replace the page), one item per URL and run in one of the run's change partitions
 * (`CHANGE#<urlId>`), the URL's last content kind beside its page (`LASTCHANGE`), and the links a
 * known page gained and lost (`LINKCHG#<toId>#<fromId>`, in the target's partition), from which
 * the run's end decides the link kinds (`newly-linked`, `orphaned`, removed by unlinking), a
 * partition at a time. No step reads more than the run's own partitions and the pages they name. Rank shifts are recorded as FinalizeRun's ranks replace the
 * old ones (`DynamoRanks`).
 */
import { changeRecordOf, contentChange, type PreviousState } from '../../changes/page-change.js';
import { underPaths } from '../../changes/monitor.js';
import type { BlobStore } from '../../ports/blob-store.js';
import {
  CHANGE_KINDS,
  CONTENT_KINDS,
  type ChangeKind,
  type ChangeQuery,
  type ChangeRecord,
  type ChangeStore,
  type ChangeTexts,
} from '../../ports/change-store.js';
import type { ExtractRecord, FetchCommit, PageRecord } from '../../ports/records.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable, inBatches } from './dynamo-table.js';
import { keys, shardOf } from './table-layout.js';
import { edgesOf, type Item } from './dynamo-items.js';

const titleOf = (page: Item | undefined) => (typeof page?.title === 'string' && page.title ? { title: page.title } : {});

/**
 * A run's changes are spread over CHANGE_SHARDS partitions by URL id (`CHANGES#<runId>#<k>`): a
 * recrawl writes about one item a page there, more than one partition's 1,000 write units a second
 * at the rates a run reaches. A URL's content change, its link kinds and the links it gained and
 * lost (by target) share its partition, so the run's end decides each partition's link kinds on
 * its own. Runs made before kept them in `RUN#<runId>`, read as one more partition
 * (LEGACY_CHANGE_SHARD).
 */
export const CHANGE_SHARDS = 32;
/** The partition number that names a run's one partition of changes from before they were spread. */
export const LEGACY_CHANGE_SHARD = CHANGE_SHARDS;
const changePartition = (runId: number, shard: number) => (shard === LEGACY_CHANGE_SHARD ? `RUN#${runId}` : `CHANGES#${runId}#${shard}`);
const changePartitionOf = (runId: number, urlId: string) => changePartition(runId, shardOf(urlId, CHANGE_SHARDS));

/** A URL's content kind in a run; a link kind or a rank shift goes beside it (`CHANGE#<urlId>#<kind>`): /d may be unchanged and newly linked. */
export const changeKey = (runId: number, urlId: string, linkKind?: ChangeKind) => ({
  PK: changePartitionOf(runId, urlId),
  SK: `CHANGE#${urlId}${linkKind ? `#${linkKind}` : ''}`,
});
export const linkKey = (runId: number, toId: string, fromId: string) => ({ PK: changePartitionOf(runId, toId), SK: `LINKCHG#${toId}#${fromId}` });
/** The key a run's change had before changes were spread over partitions. */
const legacyChangeKey = (runId: number, urlId: string, linkKind?: ChangeKind) => ({ ...changeKey(runId, urlId, linkKind), PK: `RUN#${runId}` });
export const lastKey = (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'LASTCHANGE' });
/** Runs looked back through for the latest one with changes. */
const LOOK_BACK = 50;

/** What the store held for the URL before this commit: read only when the commit says something about its page. */
export interface BeforeCommit {
  page(): Promise<PageRecord | undefined>;
  extract(): Promise<ExtractRecord | undefined>;
}

export class DynamoChanges extends DynamoTable implements ChangeStore {
  /** The partitions the run's end reads a step each: the spread ones and the one from before. */
  readonly changeShards = LEGACY_CHANGE_SHARD + 1;

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    private readonly blobs: BlobStore,
  ) {
    super(doc, table);
  }

  /**
   * Records what this fetch changed about its URL since the run before (nothing in a table's first
   * run, or for a second pass of the same run). Safe to repeat: the same items are written again.
   */
  async capture(c: FetchCommit, before: BeforeCommit): Promise<void> {
    if (!c.fetch || c.fetch.status === undefined || c.runId <= 1) return;
    const [page, last] = await Promise.all([before.page(), this.get(lastKey(c.urlId))]);
    // Already recorded by this run (a redelivered message or a second Express start).
    if (last && Number(last.runId) >= c.runId) return;
    const textChanged = page?.contentHash !== undefined && c.page?.contentHash !== page.contentHash && c.extract !== undefined;
    const extract = textChanged ? await before.extract() : undefined;
    const previous: PreviousState | undefined = page && {
      runId: page.runId,
      contentHash: page.contentHash,
      ...(extract ? { textHash: extract.textHash, extract } : {}),
      ...(last?.kind ? { lastKind: last.kind as ChangeKind } : {}),
    };
    const change = contentChange(previous, c);
    if (!change) return;
    const title = c.extract?.title ?? c.page?.title ?? page?.title;
    const record = changeRecordOf({ ...c, fetch: c.fetch }, change, previous, title);
    // The texts of a changed page, for its diff: content-addressed blobs (either may be large).
    const texts =
      change.measure && extract && c.extract
        ? { beforeBlob: await this.blobs.put(Buffer.from(extract.markdown)), afterBlob: await this.blobs.put(Buffer.from(c.extract.markdown)) }
        : {};
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...changeKey(c.runId, c.urlId), type: 'CHANGE', ...record, ...texts } }));
    await this.links(c, previous?.contentHash, change.kind);
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...lastKey(c.urlId), type: 'LASTCHANGE', runId: c.runId, kind: change.kind } }));
  }

  /** The links a known page gained and lost with its new snapshot (all of them, when it is removed). */
  private async links(c: FetchCommit, snapshot: string | undefined, kind: ChangeKind): Promise<void> {
    if (!snapshot || kind === 'new' || kind === 'unchanged') return;
    if (kind !== 'removed' && (!c.page?.contentHash || c.page.contentHash === snapshot)) return;
    const from = c.fetch!.url;
    const before = new Map(edgesOf(await this.get(keys.links(c.urlId, snapshot))).map((e) => [e.toId, e.toUrl]));
    const after = new Map(kind === 'removed' ? [] : (c.edges ?? []).map((e) => [e.toId, e.toUrl]));
    before.delete(c.urlId);
    after.delete(c.urlId);
    const item = (toId: string, toUrl: string, added: boolean) => ({
      ...linkKey(c.runId, toId, c.urlId),
      type: 'LINKCHG',
      toId,
      toUrl,
      fromId: c.urlId,
      fromUrl: from,
      added,
    });
    await this.batchWrite([
      ...[...after].filter(([id]) => !before.has(id)).map(([id, url]) => item(id, url, true)),
      ...[...before].filter(([id]) => !after.has(id)).map(([id, url]) => item(id, url, false)),
    ]);
  }

  /**
   * At the run's end, after its inlinks were counted (FinalizeRun's ranks): a known page linked from
   * pages that did not link it is `newly-linked`; one that lost its last link is `orphaned` when
   * it was still fetched this run, else `removed` (unlinked). Safe to repeat. Returns the counts by kind.
   */
  async finishChanges(runId: number, now = Date.now()): Promise<Partial<Record<ChangeKind, number>>> {
    const counts: Partial<Record<ChangeKind, number>> = {};
    for (let shard = 0; shard <= LEGACY_CHANGE_SHARD; shard++)
      for (const [kind, n] of Object.entries(await this.finishShard(runId, shard, now))) counts[kind as ChangeKind] = (counts[kind as ChangeKind] ?? 0) + n;
    return Object.fromEntries(CHANGE_KINDS.filter((k) => counts[k]).map((k) => [k, counts[k]]));
  }

  /** `finishChanges` for one partition of the run's changes (the run's end does each in a step of its own). */
  async finishShard(runId: number, shard: number, now = Date.now()): Promise<Partial<Record<ChangeKind, number>>> {
    const content = new Map(
      (await this.ofShard(runId, shard)).filter((c) => CONTENT_KINDS.includes(c.kind) && c.removedBy !== 'unlinked').map((c) => [c.urlId, c]),
    );
    const gained = new Map<string, { url: string; from: string[] }>();
    const lost = new Map<string, { url: string; from: string[] }>();
    for (const l of await this.partition(changePartition(runId, shard), 'LINKCHG#')) {
      const into = l.added ? gained : lost;
      const entry = into.get(String(l.toId)) ?? { url: String(l.toUrl), from: [] };
      entry.from.push(String(l.fromUrl));
      into.set(String(l.toId), entry);
    }
    const ids = [...new Set([...gained.keys(), ...lost.keys()])];
    const items = await this.batchGet(ids.flatMap((id) => [keys.page(id), keys.inlinks(id)]));
    const of = (sk: string) => new Map(items.filter((i) => i.SK === sk).map((i) => [String(i.PK).slice('URL#'.length), i]));
    const pages = of('PAGE');
    const inlinks = of('INLINKS');
    const records: ChangeRecord[] = [];
    for (const [toId, g] of gained) {
      const page = pages.get(toId);
      const kind = content.get(toId)?.kind;
      // Known before this run: stored by an earlier one, or compared with one this run.
      const known = page && (Number(page.runId) < runId || kind === 'unchanged' || kind === 'changed');
      if (!known) continue;
      const previousRunId = content.get(toId)?.previousRunId ?? Number(page.runId);
      records.push({ runId, urlId: toId, url: g.url, kind: 'newly-linked', at: now, previousRunId, ...titleOf(page), linkedFrom: g.from.sort() });
    }
    for (const [toId, l] of lost) {
      const links = inlinks.get(toId);
      if (links && Number(links.runId) === runId && Number(links.count) > 0) continue;
      const kind = content.get(toId)?.kind;
      const page = pages.get(toId);
      if (kind === 'removed' || (!kind && !page)) continue;
      const base = { runId, urlId: toId, url: l.url, at: now, ...titleOf(page), unlinkedFrom: l.from.sort() };
      const previousRunId = content.get(toId)?.previousRunId ?? (page ? Number(page.runId) : undefined);
      // Still served (fetched this run): orphaned. Not reached at all: gone.
      records.push(
        kind
          ? { ...base, kind: 'orphaned', ...(previousRunId ? { previousRunId } : {}) }
          : { ...base, kind: 'removed', removedBy: 'unlinked', ...(previousRunId ? { previousRunId } : {}) },
      );
    }
    const key = (r: ChangeRecord) =>
      (shard === LEGACY_CHANGE_SHARD ? legacyChangeKey : changeKey)(runId, r.urlId, r.removedBy === 'unlinked' ? 'removed' : r.kind);
    await this.batchWrite(records.map((r) => ({ ...key(r), type: 'CHANGE', ...r })));
    // Counted from the partition: the rank shifts the run's ranks recorded are there too.
    const counts: Partial<Record<ChangeKind, number>> = {};
    for (const c of await this.ofShard(runId, shard)) counts[c.kind] = (counts[c.kind] ?? 0) + 1;
    return Object.fromEntries(CHANGE_KINDS.filter((k) => counts[k]).map((k) => [k, counts[k]]));
  }

  async changes(query: ChangeQuery): Promise<ChangeRecord[]> {
    let found: ChangeRecord[] = [];
    if (query.runId !== undefined) found = await this.ofRun(query.runId);
    else {
      const last = Number((await this.get(keys.runCounter()))?.last ?? 0);
      for (let runId = last; runId >= 1 && runId > last - LOOK_BACK; runId--) {
        if (query.since !== undefined) {
          const run = await this.get(keys.run(runId));
          if (!run || Number(run.startedAt) < query.since) break;
          found.push(...(await this.ofRun(runId)));
        } else if ((found = await this.ofRun(runId)).length) break;
      }
    }
    const kinds = query.kinds?.length ? new Set(query.kinds) : undefined;
    const out = found.filter((c) => (kinds ? kinds.has(c.kind) : c.kind !== 'unchanged') && underPaths(c.url, query.paths ?? []));
    // As the embedded store orders them: by run, kind (in CHANGE_KINDS' order), URL.
    out.sort((a, b) => a.runId - b.runId || CHANGE_KINDS.indexOf(a.kind) - CHANGE_KINDS.indexOf(b.kind) || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return query.limit ? out.slice(0, query.limit) : out;
  }

  /** The content change kinds the run recorded for these URL ids (a BatchGet of their CHANGE items, not the run's partition). */
  async contentKinds(runId: number, urlIds: string[]): Promise<Map<string, ChangeKind>> {
    const ids = [...new Set(urlIds)];
    const out = new Map<string, ChangeKind>();
    for (let i = 0; i < ids.length; i += 50)
      for (const item of await this.batchGet(
        ids.slice(i, i + 100).map((id) => changeKey(runId, id)),
        ['urlId', 'kind'],
      ))
        out.set(String(item.urlId), item.kind as ChangeKind);
    return out;
  }

  async changeTexts(runId: number, urlId: string): Promise<ChangeTexts | undefined> {
    const item = (await this.get(changeKey(runId, urlId))) ?? (await this.get(legacyChangeKey(runId, urlId)));
    if (!item?.beforeBlob || !item.afterBlob) return undefined;
    const [before, after] = await Promise.all([this.blobs.get(String(item.beforeBlob)), this.blobs.get(String(item.afterBlob))]);
    return before && after ? { before: before.toString('utf8'), after: after.toString('utf8') } : undefined;
  }

  /** The run's changes, from each of its partitions (read in parallel). */
  private async ofRun(runId: number): Promise<ChangeRecord[]> {
    const parts = await inBatches(
      Array.from({ length: LEGACY_CHANGE_SHARD + 1 }, (_, k) => k),
      16,
      (k) => this.ofShard(runId, k),
    );
    return parts.flat();
  }

  /** The changes of one partition of the run's, as the monitor and the API see them. */
  async ofShard(runId: number, shard: number): Promise<ChangeRecord[]> {
    return (await this.partition(changePartition(runId, shard), 'CHANGE#')).map((i) => {
      const { PK: _pk, SK: _sk, type: _t, beforeBlob: _b, afterBlob: _a, ...record } = i;
      return record as unknown as ChangeRecord;
    });
  }
}
