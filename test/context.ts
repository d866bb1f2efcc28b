import { resolveSettings } from '../shared/cli/args.js';
import { buildContext, canonicalOptionsOf, type ContextParts, type CrawlContext } from '../shared/pipeline/stages/context.js';
import { extractorFor } from '../shared/extract/extractor.js';
import { openLocalForWriting } from '../shared/store/local/open-local.js';

/**
 * A crawl context over a real data directory (SQLite, blobs, WARC), as the embedded runtime builds
 * it: loopback allowed, `flags` as the CLI's, any part overridden. `close` releases the context
 * and the store.
 */
export function testContext(dataDir: string, flags: Record<string, unknown> = {}, parts: Partial<ContextParts> = {}): CrawlContext {
  const local = openLocalForWriting(dataDir, 'test');
  const settings = resolveSettings({ data: dataDir, 'allow-private-network': true, ...flags }, {});
  const ctx = buildContext({
    settings,
    extractor: extractorFor(settings, canonicalOptionsOf(settings)),
    store: local.store,
    blobs: local.blobs,
    warcDir: local.warcDir,
    ...parts,
  });
  return {
    ...ctx,
    close: async () => {
      try {
        await ctx.close();
      } finally {
        await local.close();
      }
    },
  };
}
