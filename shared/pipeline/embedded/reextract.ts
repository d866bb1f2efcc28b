import { errorMessage } from '../../errors.js';
import { frontierRowOf } from '../../ports/index.js';
import type { CrawlContext } from '../stages/context.js';
import { storedCapture } from '../stages/render-stage.js';
import { contentOf } from '../stages/process-content.js';

export interface ReextractReport {
  pages: number;
  changed: number;
  unchanged: number;
  /** How many pages changed in each compared field. */
  fields: Record<string, number>;
  failed: Array<{ url: string; error: string }>;
}

/**
 * Re-runs extraction over every stored page, reading bodies from the archive through the
 * context's fetcher (the replay fetcher: no network), stores the new extraction and reports
 * what changed.
 */
export async function reextract(ctx: CrawlContext): Promise<ReextractReport> {
  const report: ReextractReport = { pages: 0, changed: 0, unchanged: 0, fields: {}, failed: [] };
  for (const page of await ctx.store.storedPages()) {
    if (!/html|pdf/.test(page.mime) && page.mime !== '') continue;
    report.pages++;
    try {
      const res = await ctx.fetcher.fetch({ url: page.url, kind: 'page' });
      const row = frontierRowOf({ runId: page.runId, urlId: page.urlId, url: page.url, host: page.host, state: 'done', attempts: 1 });
      const before = await ctx.store.getExtract(page.urlId);
      const linksBefore = (await ctx.store.outlinks(page.urlId)).length;
      // A page that was rendered is extracted again from the DOM it kept, not from its served shell.
      const capture = storedCapture(page.render, page.fetchedAt);
      const content = await contentOf(ctx, row, { res, contentHash: page.contentHash, at: page.fetchedAt }, { capture });
      if (!content.extract) continue;
      const after = content.extract;
      const diffs = {
        title: before?.title !== after.title,
        text: before?.textHash !== after.textHash,
        markdown: before?.markdown !== after.markdown,
        method: before?.method !== after.method,
        simhash: before?.simhash !== after.simhash,
        words: before?.wordCount !== after.wordCount,
        links: linksBefore !== (content.edges?.length ?? 0),
        chunks: before === undefined,
      };
      const changedFields = Object.entries(diffs)
        .filter(([, v]) => v)
        .map(([k]) => k);
      for (const f of changedFields) report.fields[f] = (report.fields[f] ?? 0) + 1;
      if (changedFields.length) report.changed++;
      else report.unchanged++;
      await ctx.store.saveExtraction(content.edges ?? [], content.extract, content.chunks ?? []);
    } catch (err) {
      report.failed.push({ url: page.url, error: errorMessage(err) });
    }
  }
  return report;
}
