import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeTerms, docTerms, encodeTerms, queryIndexTerms, termsHeld, type PostedDoc } from '../../search/text-postings.js';
import { searchSegments, type SegmentReader } from '../../search/segment-search.js';
import type {
  BlobStore,
  EnrichCandidate,
  EnrichmentRecord,
  EnrichStore,
  ExtractRecord,
  HitDetails,
  PageRecord,
  SearchFilters,
  TextHit,
} from '../../ports/index.js';
import { ENRICH_LATENCY_BOUNDS_MS, enrichLatencyBucket, hitOf, LINKED_FROM_KEPT, type EnrichLatency } from '../../ports/search-index.js';
import { pageFieldsOf } from '../../ports/page-fields.js';
import { itemMarkdown, recordOf, type Item } from './dynamo-items.js';
import { DynamoGraph } from './dynamo-graph.js';
import { sumCounters } from './dynamo-table.js';
import { DynamoEnrichDeadLetters } from './dynamo-dead-letters.js';
import { S3TextIndex, type TextFold } from './s3-text-index.js';
import type { S3Objects } from './s3-store.js';
import { deadLetterKey, enrichmentKey, keys } from './table-layout.js';
import { DynamoTextLog, DynamoTextManifest, textLogKey } from './dynamo-text-log.js';

/**
 * A fold takes the changes logged up to this long before it started, and queries read the rest
 * from the log: a change another Lambda logs may land a moment after its time stamp. One that
 * lands later still is not lost: a fold takes every change left in the log before its cutoff.
 */
export const TEXT_LOG_SKEW_MS = 5_000;
/** Changes one fold takes at most (the oldest): a larger backlog is folded over several. */
export const FOLD_MAX_CHANGES = 20_000;
/** Anchor texts shown per hit (from links in the body or a sidebar). */
const INLINK_ANCHORS = 3;

export const enrichKeys = {
  enrichment: enrichmentKey,
  terms: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'TERMS' }),
  /** The log of text changes (`dynamo-text-log.ts`). */
  textLog: textLogKey,
  failure: deadLetterKey,
  /** The latency histogram's item (0: a fold adds what it took from the text log) and the shards pages once updated; the histogram is their sum and the log's. */
  latency: (shard = 0) => ({ PK: shard === 0 ? 'ENRICH_STATS' : `ENRICH_STATS#${shard}`, SK: 'LATENCY' }),
} as const;
/** The enrichment records' partitions (`ENRICH#<first hex digit of the url id>`), in url-id order. */
const SHARDS = [...'0123456789abcdef', '_'];
const LATENCY_SHARDS = 8;

/** The histogram's counters for these enrichment times: `lat<bucket>` (enrichments a bucket) and `latencyMs` (their sum); none for no time. */
function latencyCountersOf(times: number[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const ms of times) {
    const bucket = `lat${enrichLatencyBucket(ms)}`;
    counters[bucket] = (counters[bucket] ?? 0) + 1;
    counters.latencyMs = (counters.latencyMs ?? 0) + ms;
  }
  return counters;
}

function termsItemOf(d: PostedDoc): Item {
  return {
    ...enrichKeys.terms(d.urlId),
    type: 'TERMS',
    urlId: d.urlId,
    host: d.host,
    language: d.language,
    published: d.published,
    tags: d.tags,
    length: d.length,
    terms: encodeTerms(d.terms),
  };
}

/** An index before its first fold: no segment to read. */
const NO_SEGMENTS: SegmentReader = {
  segments: [],
  docs: 0,
  totalLength: 0,
  dead: () => Promise.resolve(undefined),
  lengths: () => Promise.resolve(new Uint32Array()),
  fields: () => Promise.resolve({ hosts: [], languages: [], published: [], tags: [], ids: new Uint32Array() }),
  postings: () => Promise.resolve([]),
  rows: () => Promise.resolve([]),
};

function postedOf(item: Item): PostedDoc {
  return {
    urlId: String(item.urlId),
    host: String(item.host),
    language: item.language as string | undefined,
    published: item.published as string | undefined,
    tags: (item.tags as string[]) ?? [],
    length: Number(item.length),
    terms: decodeTerms(String(item.terms ?? '')),
  };
}

/**
 * Summarize and Index in DynamoDB: ENRICH items (the truth), TERMS items (a page's weighted term
 * frequencies), a TEXTLOG of what changed since the last fold into the full-text index, and the dead letters.
 * Full-text search scores the index's segments in S3 and that delta together, so a page is
 * findable by its words as soon as it is enriched; a fold writes the delta as a new segment.
 */
export class DynamoEnrichStore extends DynamoEnrichDeadLetters implements EnrichStore {
  private readonly graph: DynamoGraph;
  /** Candidate url ids of the current listing pass (a Scan, done once per pass). */
  private candidateIds?: string[];

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    private readonly blobs: BlobStore,
    objects: S3Objects,
    /** How long before a fold started the changes it takes were logged (see TEXT_LOG_SKEW_MS). */
    private readonly logSkewMs = TEXT_LOG_SKEW_MS,
  ) {
    super(doc, table);
    this.graph = new DynamoGraph(doc, table);
    this.textLog = new DynamoTextLog(doc, table);
    this.textIndex = new S3TextIndex(objects, new DynamoTextManifest(doc, table));
  }

  private readonly textLog: DynamoTextLog;
  /** The full-text index's segments in S3. */
  readonly textIndex: S3TextIndex;

  async enrichCandidates(afterUrlId: string, limit: number): Promise<EnrichCandidate[]> {
    if (afterUrlId === '' || !this.candidateIds) {
      const extracts = await this.scanAll({
        FilterExpression: '#type = :x AND wordCount > :zero AND attribute_not_exists(textDuplicateOf) AND attribute_not_exists(nearDuplicateOf)',
        ProjectionExpression: 'urlId',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':x': 'EXTRACT', ':zero': 0 },
      });
      this.candidateIds = extracts.map((i) => String(i.urlId)).sort();
    }
    const ids = this.candidateIds;
    let start = ids.findIndex((id) => id > afterUrlId);
    if (start < 0) return [];
    const out: EnrichCandidate[] = [];
    while (out.length < limit && start < ids.length) {
      const slice = ids.slice(start, start + (limit - out.length));
      start += slice.length;
      out.push(...(await this.candidatesOf(slice)));
    }
    return out;
  }

  async enrichCandidate(urlId: string): Promise<EnrichCandidate | undefined> {
    return (await this.candidatesOf([urlId]))[0];
  }

  private async candidatesOf(ids: string[]): Promise<EnrichCandidate[]> {
    if (ids.length === 0) return [];
    const items = await this.batchGet(ids.flatMap((id) => [keys.page(id), keys.extract(id), enrichKeys.enrichment(id)]));
    const byKey = new Map(items.map((i) => [`${i.PK}|${i.SK}`, i]));
    const at = (k: { PK: string; SK: string }) => byKey.get(`${k.PK}|${k.SK}`);
    const out: EnrichCandidate[] = [];
    for (const id of ids) {
      const page = recordOf<PageRecord>(at(keys.page(id)));
      const x = at(keys.extract(id));
      const extract = recordOf<ExtractRecord & { markdownBlob?: string }>(x);
      if (!page?.indexable || !extract || extract.wordCount <= 0 || extract.textDuplicateOf || extract.nearDuplicateOf) continue;
      this.noteMark(id, x);
      out.push({
        urlId: id,
        url: page.url,
        host: page.host,
        title: extract.title ?? page.title ?? '',
        markdown: await this.markdownOf(extract, x),
        textHash: extract.textHash,
        ...pageFieldsOf(extract.metadata),
        enrichment: recordOf<EnrichmentRecord>(at(enrichKeys.enrichment(id))),
      });
    }
    return out;
  }

  private async markdownOf(x: ExtractRecord & { markdownBlob?: string }, item: Item | undefined): Promise<string> {
    if (!x.markdownBlob) return itemMarkdown(item) ?? '';
    const bytes = await this.blobs.get(x.markdownBlob);
    if (!bytes) throw new Error(`the markdown of ${x.urlId} (${x.markdownBlob}) is missing from the blob store: restore the raw/ objects of the bucket`);
    return bytes.toString();
  }

  async putEnrichment(record: EnrichmentRecord, body: string): Promise<void> {
    const { terms, length } = docTerms({ title: record.title, tags: record.tags, summary: record.summary, body });
    const posted = {
      urlId: record.urlId,
      host: record.host,
      language: record.language,
      published: record.published,
      tags: record.tags,
      length,
      terms,
    };
    // Terms before the record: a record is never searchable by words it does not hold.
    await this.put(termsItemOf(posted));
    const { tookMs, ...stored } = record;
    await this.put({ ...enrichKeys.enrichment(record.urlId), type: 'ENRICH', ...stored });
    // After the record, and independent of each other: sent at once. The log entry carries the
    // enrichment's time: the histogram reads it there until a fold adds it to the histogram's item.
    await Promise.all([this.logChange(record.urlId, tookMs), this.clearDeadLetterOf(record.urlId)]);
  }

  /**
   * The histogram's items (what folds added, and the shards every page once updated) plus the
   * times of the changes logged since the last fold: one write a fold, not one a page.
   */
  async enrichLatency(): Promise<EnrichLatency> {
    const [shards, current] = await Promise.all([
      this.batchGet(Array.from({ length: LATENCY_SHARDS }, (_, k) => enrichKeys.latency(k))),
      this.textIndex.manifest(),
    ]);
    const logged = latencyCountersOf(await this.textLog.timedSince(current?.manifest.builtAt ?? 0));
    const item = sumCounters([...shards, logged])!;
    const counts = Array.from({ length: ENRICH_LATENCY_BOUNDS_MS.length + 1 }, (_, i) => Number(item[`lat${i}`] ?? 0));
    return { counts, sumMs: Number(item.latencyMs ?? 0) };
  }

  /** Adds the timed changes a fold took to the histogram's item, in one update. */
  private async addLatencies(taken: Array<{ tookMs?: number }>): Promise<void> {
    const adds = Object.entries(latencyCountersOf(taken.flatMap((c) => (c.tookMs === undefined ? [] : [c.tookMs]))));
    if (adds.length === 0) return;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: enrichKeys.latency(0),
        UpdateExpression: `SET #type = :type ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
        ExpressionAttributeNames: { '#type': 'type', ...Object.fromEntries(adds.map(([k], i) => [`#a${i}`, k])) },
        ExpressionAttributeValues: { ':type': 'ENRICH_STATS', ...Object.fromEntries(adds.map(([, n], i) => [`:a${i}`, n])) },
      }),
    );
  }

  async deleteEnrichment(urlId: string): Promise<void> {
    await this.batchWrite([], [enrichKeys.enrichment(urlId), enrichKeys.terms(urlId)]);
    await this.logChange(urlId);
  }

  private async put(item: Item): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  /** The delta of the full-text index: which pages changed since the last build. */
  private async logChange(urlId: string, tookMs?: number): Promise<void> {
    await this.textLog.log(urlId, tookMs);
  }

  async enrichments(afterUrlId: string, limit: number): Promise<EnrichmentRecord[]> {
    const out: EnrichmentRecord[] = [];
    for (const shard of SHARDS) {
      let start: Record<string, unknown> | undefined;
      do {
        if (out.length >= limit) return out;
        const res = await this.doc.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'PK = :pk AND SK > :after',
            ExpressionAttributeValues: { ':pk': `ENRICH#${shard}`, ':after': afterUrlId },
            Limit: limit - out.length,
            ExclusiveStartKey: start,
            ConsistentRead: true,
          }),
        );
        out.push(...(res.Items ?? []).map((i) => recordOf<EnrichmentRecord>(i)!));
        start = res.LastEvaluatedKey;
      } while (start);
    }
    return out;
  }

  async enrichmentsOf(urlIds: string[]): Promise<EnrichmentRecord[]> {
    return (await this.batchGet(urlIds.map(enrichKeys.enrichment))).map((i) => recordOf<EnrichmentRecord>(i)!);
  }

  /** Url ids logged as changed since `since` (ms), oldest first, each once. */
  changedSince(since: number): Promise<string[]> {
    return this.textLog.changedSince(since);
  }

  async textSearch(terms: string[], filters: SearchFilters, limit: number): Promise<TextHit[]> {
    const query = queryIndexTerms(terms);
    if (query.length === 0) return [];
    const snapshot = await this.textIndex.snapshot();
    const changed = await this.changedSince(snapshot?.manifest.builtAt ?? 0);
    const fresh = (await this.batchGet(changed.map(enrichKeys.terms))).map(postedOf);
    return searchSegments(snapshot ?? NO_SEGMENTS, query, { replaced: new Set(changed), fresh }, filters, limit);
  }

  /**
   * How many changes the log holds (none a fold took), counted up to `limit` (one COUNT Query a
   * partition). Each full-text query reads those since the last fold: a long run's loop folds them
   * in when they pass a bound.
   */
  async textLogBacklog(limit: number): Promise<number> {
    return this.textLog.countSince(0, limit);
  }

  /**
   * Folds the pages changed since the last fold into the full-text index as a new segment (and
   * runs the merges then due), then deletes the log entries it took. Reads the change log and
   * those pages' TERMS items only: never every page. FinalizeRun calls it, and a long run's loop
   * when the log passes a bound (`textLogBacklog`).
   */
  async indexTextChanges({ settle = false, maxChanges = FOLD_MAX_CHANGES }: { settle?: boolean; maxChanges?: number } = {}): Promise<
    TextFold & { seconds: number }
  > {
    // A fold takes only changes older than the log's skew (a writer's clock may lag). At a run's
    // end the last pages were logged seconds ago: wait them out once, so the run is folded whole.
    if (settle && (await this.textLog.countSince(Date.now() - this.logSkewMs, 1)) > 0) await new Promise((r) => setTimeout(r, this.logSkewMs));
    const started = Date.now();
    const cutoff = started - this.logSkewMs;
    const current = await this.textIndex.manifest();
    const taken = await this.textLog.before(cutoff, maxChanges);
    // A backlog past one fold's share: queries read the rest from the log, from the last change taken.
    const builtAt = taken.length === maxChanges ? taken[taken.length - 1]!.at : cutoff;
    const changed = [...new Set(taken.map((c) => c.urlId))];
    const docs = (await this.batchGet(changed.map(enrichKeys.terms))).map(postedOf);
    const present = new Set(docs.map((d) => d.urlId));
    const fold = await this.textIndex.fold(
      current,
      docs,
      changed.filter((id) => !present.has(id)),
      builtAt,
    );
    if (fold.committed) {
      // Before the entries go: a fold that stops between the two counts them again, never loses them.
      await this.addLatencies(taken);
      await this.textLog.remove(taken);
    }
    return { ...fold, seconds: (Date.now() - started) / 1000 };
  }

  async hitDetails(urlIds: string[], terms: string[]): Promise<HitDetails[]> {
    const items = await this.batchGet(urlIds.flatMap((id) => [enrichKeys.enrichment(id), enrichKeys.terms(id)]));
    const byKey = new Map(items.map((i) => [`${i.PK}|${i.SK}`, i]));
    const out: HitDetails[] = [];
    for (const id of urlIds) {
      const k = enrichKeys.enrichment(id);
      const e = recordOf<EnrichmentRecord>(byKey.get(`${k.PK}|${k.SK}`));
      if (!e) continue;
      const t = enrichKeys.terms(id);
      const { anchors, linkedFrom } = await this.inlinksOf(id);
      out.push(hitOf(e, termsHeld(terms, decodeTerms(String(byKey.get(`${t.PK}|${t.SK}`)?.terms ?? ''))), anchors, linkedFrom));
    }
    return out;
  }

  /** The anchor texts of links from other pages' bodies and sidebars, by how many pages use each; and those pages. */
  private async inlinksOf(urlId: string): Promise<{ anchors: Array<{ anchor: string; count: number }>; linkedFrom: string[] }> {
    const sources = new Map<string, Set<string>>();
    const linkedFrom = new Set<string>();
    for (const e of await this.graph.inlinks(urlId)) {
      if ((e.section !== 'body' && e.section !== 'sidebar') || e.fromId === urlId) continue;
      if (linkedFrom.size < LINKED_FROM_KEPT) linkedFrom.add(e.fromId);
      if (!e.anchor) continue;
      let from = sources.get(e.anchor);
      if (!from) sources.set(e.anchor, (from = new Set()));
      from.add(e.fromId);
    }
    const anchors = [...sources]
      .map(([anchor, from]) => ({ anchor, count: from.size }))
      .sort((a, b) => b.count - a.count || (a.anchor < b.anchor ? -1 : 1))
      .slice(0, INLINK_ANCHORS);
    return { anchors, linkedFrom: [...linkedFrom] };
  }
}
