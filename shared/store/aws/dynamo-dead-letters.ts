// The enrichment dead letters (`ENRICH_FAILURES`) and the mark a page's EXTRACT item carries while
// it has one: an enrichment deletes a dead letter only where its page's candidate read saw the mark.
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EnrichFailure } from '../../ports/index.js';
import { recordOf, type Item } from './dynamo-items.js';
import { DynamoTable, isConditionFailure } from './dynamo-table.js';
import { deadLetterKey, ENRICH_DEAD_LETTER, enrichmentKey, keys } from './table-layout.js';

/** Pages whose mark a store keeps between their candidate read and their record. */
const MARKS_KEPT = 10_000;

export abstract class DynamoEnrichDeadLetters extends DynamoTable {
  /**
   * Whether the candidate read of a page found its dead letter's mark, until its enrichment is
   * written: a page read without the mark has no dead letter to delete.
   */
  private readonly marked = new Map<string, boolean>();

  /** Notes what a candidate read found on the page's EXTRACT item. */
  protected noteMark(urlId: string, extract: Item | undefined): void {
    if (this.marked.size >= MARKS_KEPT) this.marked.clear();
    this.marked.set(urlId, extract?.[ENRICH_DEAD_LETTER] === true);
  }

  /**
   * Deletes the page's dead letter as its enrichment is written, unless its candidate read found it
   * has none: a delete of nothing costs a write unit, and reading the dead letters instead would
   * put every page on their one partition.
   */
  protected async clearDeadLetterOf(urlId: string): Promise<void> {
    const unmarked = this.marked.get(urlId) === false;
    this.marked.delete(urlId);
    if (!unmarked) await this.clearEnrichFailure(urlId);
  }

  async recordEnrichFailure(f: EnrichFailure): Promise<void> {
    // The page's mark first: a dead letter is never left without it.
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.extract(f.urlId),
          UpdateExpression: 'SET #m = :t',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#m': ENRICH_DEAD_LETTER },
          ExpressionAttributeValues: { ':t': true },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: deadLetterKey(f.urlId),
        UpdateExpression: 'SET #type = :t, urlId = :u, #url = :url, stage = :s, #error = :e, failedAt = :at ADD attempts :n',
        ExpressionAttributeNames: { '#type': 'type', '#url': 'url', '#error': 'error' },
        ExpressionAttributeValues: { ':t': 'ENRICH_FAILURE', ':u': f.urlId, ':url': f.url, ':s': f.stage, ':e': f.error, ':at': f.failedAt, ':n': f.attempts },
      }),
    );
  }

  async clearEnrichFailure(urlId: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: deadLetterKey(urlId) }));
  }

  /**
   * The dead letters, oldest first. One written before pages were marked (an earlier version) was
   * not deleted by its page's enrichment since: it is left out once the page has a record newer than it.
   */
  async enrichFailures(): Promise<EnrichFailure[]> {
    const failures = (await this.partition(deadLetterKey('').PK, '')).map((i) => recordOf<EnrichFailure>(i)!);
    const items = await this.batchGet(
      failures.flatMap((f) => [keys.extract(f.urlId), enrichmentKey(f.urlId)]),
      ['PK', 'SK', 'urlId', ENRICH_DEAD_LETTER, 'updatedAt'],
    );
    const marked = new Set(items.filter((i) => i.SK === 'EXTRACT' && i[ENRICH_DEAD_LETTER] === true).map((i) => String(i.urlId)));
    const enrichedAt = new Map(items.filter((i) => String(i.PK).startsWith('ENRICH#')).map((i) => [String(i.urlId), Number(i.updatedAt)]));
    return failures
      .filter((f) => marked.has(f.urlId) || !(Number(enrichedAt.get(f.urlId)) > f.failedAt))
      .sort((a, b) => a.failedAt - b.failedAt || (a.urlId < b.urlId ? -1 : 1));
  }
}
