import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { bm25, decodeTerms, docTerms, encodeTerms, passesFilters, queryIndexTerms, type PostedDoc } from '../../search/text-postings.js';
import type {
  BlobStore,
  EnrichCandidate,
  EnrichFailure,
  EnrichmentRecord,
  EnrichStore,
  ExtractRecord,
  HitDetails,
  PageRecord,
  SearchFilters,
  TextHit,
} from '../ports/index.js';
import { ENRICH_LATENCY_BOUNDS_MS, enrichLatencyBucket, hitOf, type EnrichLatency } from '../ports/search-index.js';
import { recordOf, type Item } from './dynamo-items.js';
import { DynamoGraph } from './dynamo-graph.js';
import { DynamoTable, sumCounters } from './dynamo-table.js';
import type { S3TextIndex, TextSnapshot } from './s3-text-index.js';
import { keys } from './table.js';
import { DynamoTextLog, textLogKey } from './dynamo-text-log.js';

/** Indexed text kept per page for saying which query terms matched a hit. */
const SHOWN_TEXT_CHARS = 20_000;
/** Enrichments logged this long before a build started are counted in the delta too (clock skew between Lambdas). */
export const TEXT_LOG_SKEW_MS = 60_000;
/** Anchor texts shown per hit (from links in the body or a sidebar). */
const INLINK_ANCHORS = 3;

/** Enrichment items are spread over 16 partitions by the first hex digit of the url id; listing them in that order is url-id order. */
const HEX = '0123456789abcdef';
export const enrichKeys = {
  enrichment: (urlId: string) => ({ PK: `ENRICH#${HEX.includes(urlId[0] ?? '') ? urlId[0] : '_'}`, SK: urlId }),
  terms: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'TERMS' }),
  /** The log of text changes (`dynamo-text-log.ts`). */
  textLog: textLogKey,
  failure: (urlId: string) => ({ PK: 'ENRICH_FAILURES', SK: urlId }),
  /** One of the latency histogram's shards (a random one takes each page's update); the histogram is their sum. */
  latency: (shard = 0) => ({ PK: shard === 0 ? 'ENRICH_STATS' : `ENRICH_STATS#${shard}`, SK: 'LATENCY' }),
} as const;
const SHARDS = [...HEX, '_'];
const LATENCY_SHARDS = 8;

function postedPositions(postings: number[]): Set<number> {
  const out = new Set<number>();
  for (let j = 0; j < postings.length; j += 2) out.add(postings[j]!);
  return out;
}

function termsItemOf(d: PostedDoc & { text: string }): Item {
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
    text: d.text,
  };
}

function postedOf(item: Item): PostedDoc & { text: string } {
  return {
    urlId: String(item.urlId),
    host: String(item.host),
    language: item.language as string | undefined,
    published: item.published as string | undefined,
    tags: (item.tags as string[]) ?? [],
    length: Number(item.length),
    terms: decodeTerms(String(item.terms ?? '')),
    text: String(item.text ?? ''),
  };
}

/**
 * Summarize and Index in DynamoDB: ENRICH items (the truth), TERMS items (a page's weighted term
 * frequencies), a TEXTLOG of what changed since the last full-text build, and the dead letters.
 * Full-text search scores the S3 index generation and that delta together, so a page is findable
 * by its words as soon as it is enriched; FinalizeRun folds the delta into a new generation.
 */
export class DynamoEnrichStore extends DynamoTable implements EnrichStore {
  private readonly graph: DynamoGraph;
  /** Candidate url ids of the current listing pass (a Scan, done once per pass). */
  private candidateIds?: string[];

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    private readonly blobs: BlobStore,
    readonly textIndex: S3TextIndex,
    /** How far back of a build the change log is still scored (clock skew between functions). */
    private readonly logSkewMs = TEXT_LOG_SKEW_MS,
  ) {
    super(doc, table);
    this.graph = new DynamoGraph(doc, table);
    this.textLog = new DynamoTextLog(doc, table);
  }

  private readonly textLog: DynamoTextLog;

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
      out.push({
        urlId: id,
        url: page.url,
        host: page.host,
        title: extract.title ?? page.title ?? '',
        markdown: await this.markdownOf(extract),
        textHash: extract.textHash,
        language: extract.language,
        published: extract.published,
        enrichment: recordOf<EnrichmentRecord>(at(enrichKeys.enrichment(id))),
      });
    }
    return out;
  }

  private async markdownOf(x: ExtractRecord & { markdownBlob?: string }): Promise<string> {
    if (!x.markdownBlob) return x.markdown ?? '';
    const bytes = await this.blobs.get(x.markdownBlob);
    if (!bytes) throw new Error(`the markdown of ${x.urlId} (${x.markdownBlob}) is missing from the blob store: restore the raw/ objects of the bucket`);
    return bytes.toString();
  }

  async putEnrichment(record: EnrichmentRecord, body: string): Promise<void> {
    const { terms, length } = docTerms({ title: record.title, tags: record.tags, summary: record.summary, body });
    const shown = `${record.title} ${record.tags.map((t) => t.slice(1).replace(/-/g, ' ')).join(' ')} ${record.summary} ${body}`.slice(0, SHOWN_TEXT_CHARS);
    const posted = {
      urlId: record.urlId,
      host: record.host,
      language: record.language,
      published: record.published,
      tags: record.tags,
      length,
      terms,
      text: shown,
    };
    // Terms before the record: a record is never searchable by words it does not hold.
    await this.put(termsItemOf(posted));
    const { tookMs, ...stored } = record;
    await this.put({ ...enrichKeys.enrichment(record.urlId), type: 'ENRICH', ...stored });
    await this.logChange(record.urlId);
    await this.clearEnrichFailure(record.urlId);
    if (tookMs !== undefined) {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: enrichKeys.latency(Math.floor(Math.random() * LATENCY_SHARDS)),
          UpdateExpression: 'SET #type = :type ADD #bucket :one, latencyMs :ms',
          ExpressionAttributeNames: { '#type': 'type', '#bucket': `lat${enrichLatencyBucket(tookMs)}` },
          ExpressionAttributeValues: { ':type': 'ENRICH_STATS', ':one': 1, ':ms': Math.round(tookMs) },
        }),
      );
    }
  }

  async enrichLatency(): Promise<EnrichLatency> {
    const item = sumCounters(await this.batchGet(Array.from({ length: LATENCY_SHARDS }, (_, k) => enrichKeys.latency(k)))) ?? {};
    const counts = ENRICH_LATENCY_BOUNDS_MS.map((_, i) => Number(item[`lat${i}`] ?? 0));
    counts.push(Number(item[`lat${ENRICH_LATENCY_BOUNDS_MS.length}`] ?? 0));
    return { counts, sumMs: Number(item.latencyMs ?? 0) };
  }

  async deleteEnrichment(urlId: string): Promise<void> {
    await this.batchWrite([], [enrichKeys.enrichment(urlId), enrichKeys.terms(urlId)]);
    await this.logChange(urlId);
  }

  private async put(item: Item): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  /** The delta of the full-text index: which pages changed since the last build. */
  private async logChange(urlId: string): Promise<void> {
    await this.textLog.log(urlId);
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

  async recordEnrichFailure(f: EnrichFailure): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: enrichKeys.failure(f.urlId),
        UpdateExpression: 'SET #type = :t, urlId = :u, #url = :url, stage = :s, #error = :e, failedAt = :at ADD attempts :n',
        ExpressionAttributeNames: { '#type': 'type', '#url': 'url', '#error': 'error' },
        ExpressionAttributeValues: { ':t': 'ENRICH_FAILURE', ':u': f.urlId, ':url': f.url, ':s': f.stage, ':e': f.error, ':at': f.failedAt, ':n': f.attempts },
      }),
    );
  }

  async clearEnrichFailure(urlId: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: enrichKeys.failure(urlId) }));
  }

  async enrichFailures(): Promise<EnrichFailure[]> {
    const items = await this.partition(enrichKeys.failure('').PK, '');
    return items.map((i) => recordOf<EnrichFailure>(i)!).sort((a, b) => a.failedAt - b.failedAt || (a.urlId < b.urlId ? -1 : 1));
  }

  /** Url ids logged as changed since `since` (ms), oldest first, each once. */
  changedSince(since: number): Promise<string[]> {
    return this.textLog.changedSince(since);
  }

  async textSearch(terms: string[], filters: SearchFilters, limit: number): Promise<TextHit[]> {
    const query = queryIndexTerms(terms);
    if (query.length === 0) return [];
    const snapshot = await this.textIndex.snapshot();
    const changed = await this.changedSince(snapshot ? snapshot.manifest.builtAt - this.logSkewMs : 0);
    const fresh = (await this.batchGet(changed.map(enrichKeys.terms))).map(postedOf);
    const replaced = new Set(changed);
    const indexed = snapshot ? await this.indexedMatches(snapshot, query, replaced) : new Map<string, PostedDoc>();
    // Corpus statistics over the generation with the delta applied.
    let docs = snapshot?.manifest.docs ?? 0;
    let totalLength = snapshot?.manifest.totalLength ?? 0;
    const dfShift = new Map<string, number>();
    const holders = new Map<string, Set<number>>();
    if (snapshot && changed.length > 0) for (const t of query) holders.set(t, postedPositions(await snapshot.postings(t)));
    for (const id of changed) {
      const i = snapshot?.positions.get(id);
      if (i === undefined) continue;
      docs -= 1;
      totalLength -= snapshot!.doc(i).length;
      for (const t of query) if (holders.get(t)?.has(i)) dfShift.set(t, (dfShift.get(t) ?? 0) - 1);
    }
    for (const d of fresh) {
      docs += 1;
      totalLength += d.length;
      for (const t of query) if (d.terms.has(t)) dfShift.set(t, (dfShift.get(t) ?? 0) + 1);
    }
    const baseDf = new Map<string, number>();
    if (snapshot) for (const t of query) baseDf.set(t, (await snapshot.postings(t)).length / 2);
    const stats = { docs, totalLength, df: (t: string) => Math.max(0, (baseDf.get(t) ?? 0) + (dfShift.get(t) ?? 0)) };
    const hits: TextHit[] = [];
    for (const d of [...indexed.values(), ...fresh]) {
      if (!passesFilters(d, filters)) continue;
      const score = bm25(d, query, stats);
      if (score > 0) hits.push({ urlId: d.urlId, score });
    }
    return hits.sort((a, b) => b.score - a.score || (a.urlId < b.urlId ? -1 : 1)).slice(0, limit);
  }

  /** Documents of the generation holding a query term, with their frequencies for the query's terms; pages changed since are left to the delta. */
  private async indexedMatches(snapshot: TextSnapshot, query: string[], replaced: Set<string>): Promise<Map<string, PostedDoc>> {
    const out = new Map<string, PostedDoc>();
    for (const t of query) {
      const postings = await snapshot.postings(t);
      for (let j = 0; j < postings.length; j += 2) {
        const base = snapshot.doc(postings[j]!);
        if (replaced.has(base.urlId)) continue;
        let d = out.get(base.urlId);
        if (!d) out.set(base.urlId, (d = { ...base, terms: new Map() }));
        d.terms.set(t, postings[j + 1]!);
      }
    }
    return out;
  }

  /** Every page's full-text entry, in url-id order. */
  private async *postedDocs(): AsyncGenerator<PostedDoc> {
    let after = '';
    while (true) {
      const page = await this.enrichments(after, 500);
      for (const item of await this.batchGet(page.map((e) => enrichKeys.terms(e.urlId)))) yield postedOf(item);
      if (page.length < 500) return;
      after = page[page.length - 1]!.urlId;
    }
  }

  /**
   * How many changes the log holds past the current generation, counted up to `limit` (one Query
   * of at most `limit` small items). Each full-text query reads them all: a long run's loop
   * rebuilds the generation when they pass a bound.
   */
  async textLogBacklog(limit: number): Promise<number> {
    const manifest = await this.textIndex.manifest();
    return this.textLog.countSince(manifest ? manifest.builtAt - this.logSkewMs : 0, limit);
  }

  /**
   * Builds a new generation of the full-text index from every TERMS item, then drops the log
   * entries it folded in. FinalizeRun calls it, and a long run's loop when the log passes a bound
   * (`textLogBacklog`); so may anyone after a bulk change.
   */
  async rebuildTextIndex(): Promise<{ docs: number; generation: string; seconds: number }> {
    const started = Date.now();
    const manifest = await this.textIndex.build(this.postedDocs(), started);
    await this.textLog.dropBefore(started - this.logSkewMs);
    return { docs: manifest.docs, generation: manifest.generation, seconds: (Date.now() - started) / 1000 };
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
      out.push(hitOf(e, terms, String(byKey.get(`${t.PK}|${t.SK}`)?.text ?? ''), await this.anchors(id)));
    }
    return out;
  }

  /** The anchor texts of links from other pages' bodies and sidebars, by how many pages use each. */
  private async anchors(urlId: string): Promise<Array<{ anchor: string; count: number }>> {
    const sources = new Map<string, Set<string>>();
    for (const e of await this.graph.inlinks(urlId)) {
      if (!e.anchor || (e.section !== 'body' && e.section !== 'sidebar')) continue;
      let from = sources.get(e.anchor);
      if (!from) sources.set(e.anchor, (from = new Set()));
      from.add(e.fromId);
    }
    return [...sources]
      .map(([anchor, from]) => ({ anchor, count: from.size }))
      .sort((a, b) => b.count - a.count || (a.anchor < b.anchor ? -1 : 1))
      .slice(0, INLINK_ANCHORS);
  }
}
