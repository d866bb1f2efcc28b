import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hammingDistance, simhashWideBands } from '../../dedupe/simhash.js';
import type { BlobStore, ChunkRecord, EdgeRecord, ExtractRecord, FetchRecord, PageRecord } from '../../ports/index.js';
import { chunkItems, chunksOf, edgesOf, extractItem, itemMarkdown, linksItem, pageItem, recordOf, type Item } from './dynamo-items.js';
import { DynamoHostQueues } from './dynamo-host-queues.js';
import { isConditionFailure } from './dynamo-table.js';
import { ENRICH_DEAD_LETTER, keys } from './table-layout.js';

/** Text fields longer than this go to the blob store (DynamoDB items stop at 400 KB). */
const SPILL_BYTES = 100_000;

/**
 * Pages read from one SimHash band when a page looks for its near-duplicate: a band holds about 100
 * pages at 10⁸ pages (its 20–22 bits), so the cap bounds a pathological band's read (about two read
 * units), never an ordinary one.
 */
export const BAND_CANDIDATES = 100;

/**
 * What the cloud store keeps of content: pages, fetch history, extractions with their chunks and
 * SimHash bands, body owners, outlinks and duplicate lookups, with texts too large for an item
 * kept in the blob store. `DynamoCrawlStore` adds runs, the frontier and hosts.
 */
export abstract class DynamoContent extends DynamoHostQueues {
  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    protected readonly blobs: BlobStore,
  ) {
    super(doc, table);
  }

  protected async spill(text: string | undefined): Promise<{ text?: string; blob?: string }> {
    if (text === undefined || Buffer.byteLength(text) <= SPILL_BYTES) return { text };
    return { blob: await this.blobs.put(Buffer.from(text)) };
  }

  protected async unspill(text: unknown, blob: unknown): Promise<string | undefined> {
    if (typeof blob !== 'string') return text as string | undefined;
    const bytes = await this.blobs.get(blob);
    if (!bytes) throw new Error(`stored text ${blob} is missing from the blob store: restore the raw/ objects of the bucket`);
    return bytes.toString();
  }

  async chunks(urlId: string): Promise<ChunkRecord[]> {
    return chunksOf(await this.partition(`URL#${urlId}`, 'CHUNK#'), async () => {
      const extract = await this.get(keys.extract(urlId));
      return (await this.unspill(itemMarkdown(extract), extract?.markdownBlob)) ?? '';
    });
  }

  protected async putPage(p: PageRecord): Promise<void> {
    const res = await this.doc.send(new PutCommand({ TableName: this.table, Item: pageItem(p), ReturnValues: 'ALL_OLD' }));
    if (res.Attributes?.runId !== p.runId) await this.addCounters(p.runId, { pagesStored: 1, duplicates: p.duplicateOf ? 1 : 0 });
    // The page moved on to other bytes: the old snapshot's outlinks are no longer anyone's.
    const before = res.Attributes?.contentHash;
    if (typeof before === 'string' && before !== p.contentHash) await this.batchWrite([], [keys.links(p.urlId, before)]);
  }

  protected async writeExtraction(x: ExtractRecord, chunks: ChunkRecord[]): Promise<void> {
    const previous = await this.get(keys.extract(x.urlId));
    const { text, blob } = await this.spill(x.markdown);
    const item = extractItem({ ...x, markdown: text ?? '' }, chunks.length);
    if (blob) item.markdownBlob = blob;
    // The page's enrichment dead letter outlives its extraction: its next enrichment deletes it.
    if (previous?.[ENRICH_DEAD_LETTER]) item[ENRICH_DEAD_LETTER] = true;
    const stale = Array.from({ length: Math.max(0, Number(previous?.chunkCount ?? 0) - chunks.length) }, (_, i) => keys.chunk(x.urlId, chunks.length + i));
    // Independent items, each write idempotent: sent at once (the URL's state is set after them all).
    await Promise.all([
      this.doc.send(new PutCommand({ TableName: this.table, Item: item })),
      x.textDuplicateOf ? undefined : this.putIfAbsent({ ...keys.text(x.textHash), type: 'TEXT', urlId: x.urlId }),
      this.batchWrite(chunkItems(chunks, x.markdown), stale),
      this.writeBands(x, previous),
    ]);
  }

  /**
   * The page's six SimHash bands (`BAND#<i>#<hex>`, 20–22 bits each): an item in each band's
   * partition, with the time the page first had that value. Only a page that is no near-duplicate is
   * in the bands, as only such a page is ever a candidate: a thousand copies of one boilerplate page
   * leave one item in each band, not a thousand. A band whose value moved loses the page; an
   * unchanged extraction writes nothing.
   */
  private async writeBands(x: ExtractRecord, previous: Item | undefined): Promise<void> {
    const nearDuplicate = x.nearDuplicateOf !== undefined;
    if (previous?.simhash === x.simhash && (previous.nearDuplicateOf !== undefined) === nearDuplicate) return;
    const before = typeof previous?.simhash === 'string' ? simhashWideBands(previous.simhash) : [];
    const values = nearDuplicate ? [] : simhashWideBands(x.simhash);
    const moved = before.flatMap((value, band) => (value !== values[band] ? [keys.band(band, value, x.urlId)] : []));
    if (moved.length) await this.batchWrite([], moved);
    const now = Date.now();
    await Promise.all(
      values.map((value, band) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.band(band, value, x.urlId),
            UpdateExpression: 'SET #type = :t, urlId = :u, simhash = :h, firstSeen = if_not_exists(firstSeen, :now)',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':t': 'BAND', ':u': x.urlId, ':h': x.simhash, ':now': now },
          }),
        ),
      ),
    );
  }

  async fetchHistory(urlId: string): Promise<FetchRecord[]> {
    return (await this.partition(`URL#${urlId}`, 'FETCH#')).map((i) => recordOf<FetchRecord>(i)!);
  }

  async storedPages(): Promise<PageRecord[]> {
    const items = await this.scanAll({
      FilterExpression: '#type = :p AND attribute_exists(contentHash)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':p': 'PAGE' },
    });
    return items.map((i) => recordOf<PageRecord>(i)!).sort((a, b) => a.fetchedAt - b.fetchedAt);
  }

  /**
   * A snapshot's outlinks, one LINKS item per source snapshot (a commit carries one page's). With
   * `merge`, a snapshot extracted again adds to its stored links (a link to the same target is
   * replaced), as in SQLite; a commit writes its snapshot's whole list and reads nothing.
   */
  protected async putLinks(edges: EdgeRecord[], merge = false): Promise<void> {
    const bySnapshot = new Map<string, EdgeRecord[]>();
    for (const e of edges) {
      const k = `${e.fromId}\n${e.snapshot}`;
      bySnapshot.set(k, [...(bySnapshot.get(k) ?? []), e]);
    }
    const stored = !merge ? [] : await this.batchGet([...bySnapshot.values()].map((list) => keys.links(list[0]!.fromId, list[0]!.snapshot)));
    for (const e of stored.flatMap((i) => edgesOf(i))) {
      const list = bySnapshot.get(`${e.fromId}\n${e.snapshot}`)!;
      if (!list.some((x) => x.toId === e.toId)) list.push(e);
    }
    await this.batchWrite([...bySnapshot.values()].map((list) => linksItem(list[0]!.fromId, list[0]!.snapshot, list)));
  }

  async saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void> {
    await this.putLinks(edges, true);
    if (extract) await this.writeExtraction(extract, chunks);
  }

  async getExtract(urlId: string): Promise<ExtractRecord | undefined> {
    const item = await this.get(keys.extract(urlId));
    if (!item) return undefined;
    const {
      chunkCount: _n,
      markdownBlob,
      [ENRICH_DEAD_LETTER]: _d,
      markdownGz: _gz,
      ...x
    } = recordOf<ExtractRecord & { chunkCount: number; markdownBlob?: string; deadLettered?: true; markdownGz?: Uint8Array }>(item)!;
    return { ...x, markdown: (await this.unspill(itemMarkdown(item), markdownBlob)) ?? '' };
  }

  async getPage(urlId: string): Promise<PageRecord | undefined> {
    return recordOf<PageRecord>(await this.get(keys.page(urlId)));
  }

  async claimBody(hash: string, urlId: string, at: number): Promise<string> {
    if (await this.putIfAbsent({ ...keys.body(hash), type: 'BODY', urlId, fetchedAt: at })) return urlId;
    const owner = String((await this.get(keys.body(hash)))?.urlId);
    if (owner === urlId) return owner;
    // An owner whose page has moved on to other bytes no longer holds these: the body changes hands once.
    const page = await this.getPage(owner);
    if (!page?.contentHash || page.contentHash === hash) return owner;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.body(hash),
          UpdateExpression: 'SET urlId = :me, fetchedAt = :at',
          ConditionExpression: 'urlId = :old',
          ExpressionAttributeValues: { ':me': urlId, ':at': at, ':old': owner },
        }),
      );
      return urlId;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return String((await this.get(keys.body(hash)))?.urlId);
    }
  }

  async outlinks(urlId: string): Promise<EdgeRecord[]> {
    const page = await this.getPage(urlId);
    if (!page?.contentHash) return [];
    return edgesOf(await this.get(keys.links(urlId, page.contentHash)));
  }

  /**
   * The oldest page within `maxDistance` of `hash` among those sharing one of its bands: at most
   * {@link BAND_CANDIDATES} items a band, read eventually consistent (a page extracted in the same
   * second is caught by the in-flight check, not here).
   */
  async findNearDuplicate(hash: string, exceptUrlId: string, maxDistance: number): Promise<{ urlId: string; distance: number } | undefined> {
    const found = await Promise.all(
      simhashWideBands(hash).map(
        async (value, band) =>
          (
            await this.doc.send(
              new QueryCommand({
                TableName: this.table,
                KeyConditionExpression: 'PK = :pk',
                ExpressionAttributeValues: { ':pk': keys.band(band, value, '').PK },
                Limit: BAND_CANDIDATES,
                ConsistentRead: false,
              }),
            )
          ).Items ?? [],
      ),
    );
    const candidates = new Map<string, Item>();
    for (const item of found.flat()) if (item.urlId !== exceptUrlId && !item.nearDuplicate) candidates.set(String(item.urlId), item);
    // Oldest first: the page that had the text first is the one the others duplicate.
    const ordered = [...candidates.values()].sort((a, b) => Number(a.firstSeen) - Number(b.firstSeen) || String(a.urlId).localeCompare(String(b.urlId)));
    for (const c of ordered) {
      const distance = hammingDistance(hash, String(c.simhash));
      if (distance <= maxDistance) return { urlId: String(c.urlId), distance };
    }
    return undefined;
  }

  async findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined> {
    const owner = await this.get(keys.text(textHash));
    if (!owner || owner.urlId === exceptUrlId) return undefined;
    const x = await this.get(keys.extract(String(owner.urlId)));
    return x?.textHash === textHash ? String(owner.urlId) : undefined;
  }
}
