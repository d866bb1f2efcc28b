/**
 * Changes between runs on the DynamoDB store: captured as each fetch commits (before its writes
 * replace the page), one item per URL and run in the run's partition (`CHANGE#<urlId>`), and the
 * URL's last content kind beside its page (`LASTCHANGE`). No step reads more than the run's own
 * partition. The link kinds (`newly-linked`, `orphaned`, removed by unlinking) and rank shifts are
 * the embedded store's only (docs/known-gaps.md).
 */
import { contentChange, type PreviousState } from '../../changes/page-change.js';
import { underPaths } from '../../changes/monitor.js';
import type { BlobStore } from '../ports/blob-store.js';
import { CHANGE_KINDS, type ChangeKind, type ChangeQuery, type ChangeRecord, type ChangeStore, type ChangeTexts } from '../ports/change-store.js';
import type { ExtractRecord, FetchCommit, PageRecord } from '../records.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable } from './dynamo-table.js';
import { keys } from './table.js';

const changeKey = (runId: number, urlId: string) => ({ PK: `RUN#${runId}`, SK: `CHANGE#${urlId}` });
const lastKey = (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'LASTCHANGE' });
/** Runs looked back through for the latest one with changes. */
const LOOK_BACK = 50;

/** What the store held for the URL before this commit: read only when the commit says something about its page. */
export interface BeforeCommit {
  page(): Promise<PageRecord | undefined>;
  extract(): Promise<ExtractRecord | undefined>;
}

export class DynamoChanges extends DynamoTable implements ChangeStore {
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
    const record: ChangeRecord = {
      runId: c.runId,
      urlId: c.urlId,
      url: c.fetch.url,
      kind: change.kind,
      at: c.fetch.fetchedAt,
      ...(previous ? { previousRunId: previous.runId } : {}),
      ...(title ? { title } : {}),
      ...(change.measure ? { measure: change.measure } : {}),
      ...(change.removedBy ? { removedBy: change.removedBy } : {}),
    };
    // The texts of a changed page, for its diff: content-addressed blobs (either may be large).
    const texts =
      change.measure && extract && c.extract
        ? { beforeBlob: await this.blobs.put(Buffer.from(extract.markdown)), afterBlob: await this.blobs.put(Buffer.from(c.extract.markdown)) }
        : {};
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...changeKey(c.runId, c.urlId), type: 'CHANGE', ...record, ...texts } }));
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...lastKey(c.urlId), type: 'LASTCHANGE', runId: c.runId, kind: change.kind } }));
  }

  async finishChanges(runId: number): Promise<Partial<Record<ChangeKind, number>>> {
    const counts: Partial<Record<ChangeKind, number>> = {};
    for (const c of await this.ofRun(runId)) counts[c.kind] = (counts[c.kind] ?? 0) + 1;
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

  async changeTexts(runId: number, urlId: string): Promise<ChangeTexts | undefined> {
    const item = await this.get(changeKey(runId, urlId));
    if (!item?.beforeBlob || !item.afterBlob) return undefined;
    const [before, after] = await Promise.all([this.blobs.get(String(item.beforeBlob)), this.blobs.get(String(item.afterBlob))]);
    return before && after ? { before: before.toString('utf8'), after: after.toString('utf8') } : undefined;
  }

  private async ofRun(runId: number): Promise<ChangeRecord[]> {
    return (await this.partition(`RUN#${runId}`, 'CHANGE#')).map((i) => {
      const { PK: _pk, SK: _sk, type: _t, beforeBlob: _b, afterBlob: _a, ...record } = i;
      return record as unknown as ChangeRecord;
    });
  }
}
