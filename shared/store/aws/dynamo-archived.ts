import type { ArchivedPage, ArchivedPages } from '../../ports/archived-pages.js';
import { itemMarkdown } from './dynamo-items.js';
import { DynamoTable } from './dynamo-table.js';
import { keys } from './table-layout.js';

/** URLs read a batch (their PAGE and EXTRACT items in one BatchGet of 100 keys). */
const BATCH = 50;
const ARCHIVED_MIME = /^(text\/html|application\/xhtml\+xml|application\/pdf)\b/;

/** A run's stored pages from its partition's URL items (state `done`) and their PAGE and EXTRACT items. */
export class DynamoArchivedPages extends DynamoTable implements ArchivedPages {
  async *archivedPages(runId: number): AsyncIterable<ArchivedPage> {
    const done = await this.runItems(runId, 'URL#', { expr: '#st = :done', names: { '#st': 'state' }, values: { ':done': 'done' } });
    yield* this.archivedPagesOf(
      runId,
      done.map((i) => String(i.urlId)),
    );
  }

  /** Those of these URL ids that are pages the run stored (a WACZ part lists the pages of its own WARC files). */
  async *archivedPagesOf(runId: number, urlIds: string[]): AsyncIterable<ArchivedPage> {
    const ids = [...new Set(urlIds)].sort();
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const items = await this.batchGet(batch.flatMap((id) => [keys.page(id), keys.extract(id)]));
      const bySk = (sk: string) => new Map(items.filter((x) => x.SK === sk).map((x) => [String(x.PK).slice('URL#'.length), x]));
      const pages = bySk('PAGE');
      const extracts = bySk('EXTRACT');
      for (const id of batch) {
        const page = pages.get(id);
        const status = Number(page?.status);
        // The run's own capture of the page (a later run may have replaced it since).
        if (!page || Number(page.runId) !== runId || status < 200 || status > 299 || !ARCHIVED_MIME.test(String(page.mime))) continue;
        const x = extracts.get(id);
        const title = (x?.title ?? page.title) as string | undefined;
        // Markdown spilled to S3 (over 100 KB) is left out of the list: replay still finds the page by URL.
        const text = itemMarkdown(x) || undefined;
        yield { id, url: String(page.url), ts: Number(page.fetchedAt), ...(title ? { title } : {}), ...(text ? { text } : {}) };
      }
    }
  }
}
