import { serve, tempDir } from '../helpers.js';
import { guideResponse } from '../web/guides.js';
import { testFlags } from '../crawl-helpers.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { crawlCommand } from '../../shared/cli/crawl-command.js';
import { openLocalForWriting, type LocalStores } from '../../shared/store/local/open-local.js';
import type { CrawlSettings } from '../../shared/config/settings.js';

/** The search fixture as a small loopback site of its own (the `guides` host of the synthetic web). */
export async function startFixtureSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  return serve((req, res) => {
    const r = guideResponse((req.url ?? '/').split('?')[0]!) ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    res.writeHead(r.status, r.headers).end(r.body);
  });
}

/**
 * Crawls the fixture site into a fresh data directory with the OpenAI-compatible provider at
 * `modelOrigin` (16-dimension embeddings), hands `use` the settings and the opened store, and
 * cleans everything up after.
 */
export async function withFixtureCrawl(modelOrigin: string, use: (settings: CrawlSettings, local: LocalStores) => Promise<void>): Promise<void> {
  const site = await startFixtureSite();
  const data = tempDir();
  try {
    const settings = resolveSettings(
      { ...testFlags(data.dir, { 'delay-ms': '0' }), provider: 'openai', 'openai-base-url': `${modelOrigin}/v1`, 'embed-dimension': '16' },
      {},
    );
    await crawlCommand([`${site.origin}/`], settings, { out: () => {} });
    const local = openLocalForWriting(data.dir, 'test');
    try {
      await use(settings, local);
    } finally {
      await local.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
}

/**
 * Crawls the fixture site into a fresh data directory with `--enrich` and the local provider, hands
 * `use` the settings, and cleans up after.
 */
export async function withEnrichedCrawl(use: (settings: CrawlSettings) => Promise<void>): Promise<void> {
  const site = await startFixtureSite();
  const data = tempDir();
  try {
    const settings = resolveSettings({ ...testFlags(data.dir, { 'delay-ms': '0' }), enrich: true }, {});
    await crawlCommand([`${site.origin}/`], settings, { out: () => {} });
    await use(settings);
  } finally {
    await site.close();
    data.cleanup();
  }
}
