// `trawl fetch <target>` and `trawl social <platform> <topic…>`: one call through its backend into
// the archive (or, with --replay, from the archive with no network), printed as text or JSON.
import { UsageError } from '../errors.js';
import type { CrawlSettings } from '../config/settings.js';
import { fetch, searchSocial } from '../library/fetch.js';
import { openStore } from '../library/store.js';
import type { FetchedContent } from '../targets/content.js';
import type { SocialPlatform } from '../targets/route.js';
import { jsonLine } from './render.js';

export interface FetchFlags {
  limit?: string;
  replay?: boolean;
}

const PLATFORMS: SocialPlatform[] = ['reddit', 'mastodon', 'bluesky', 'x', 'instagram', 'tiktok'];

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new UsageError(`invalid value ${JSON.stringify(raw)} for --limit: expected a whole number from 1 to 500`);
  return n;
}

/** Human-readable lines of typed content. */
export function contentText(c: FetchedContent): string[] {
  const head = `${c.type} for ${c.key} (${new Date(c.fetchedAt).toISOString()}, ${c.durationMs} ms)`;
  switch (c.type) {
    case 'search-results':
      return [`${head} from ${c.backend}:`, ...c.results.map((r) => `  ${r.rank}. ${r.title} — ${r.url}${r.snippet ? `\n     ${r.snippet}` : ''}`)];
    case 'social-posts':
      return [
        `${head} from ${c.backend}: ${c.posts.length} posts`,
        ...c.posts.map((p) => `  ${p.time ?? '?'} ${p.author}: ${p.text.split('\n')[0]!.slice(0, 120)} — ${p.url}`),
      ];
    case 'page':
      return [`${head}: HTTP ${c.status}, ${c.title ?? '(no title)'}`, '', c.markdown];
    case 'feed':
      return [`${head}: ${c.title ?? '(untitled feed)'}, ${c.items.length} items`, ...c.items.map((i) => `  ${i.published ?? ''} ${i.title ?? ''} — ${i.url}`)];
    case 'pdf':
      return [`${head}: ${c.pages} pages, ${c.title ?? '(no title)'}`, '', c.text];
    case 'raw':
      return [`${head}: HTTP ${c.status}, ${c.mime}, ${c.bytes} bytes`];
  }
}

async function output(c: Promise<FetchedContent>, json: boolean, out: (line: string) => void): Promise<FetchedContent> {
  const content = await c;
  if (json) out(jsonLine(content as unknown as Record<string, unknown>));
  else for (const line of contentText(content)) out(line);
  return content;
}

/** The live call, or with --replay the same call answered from the data directory's archive. */
async function liveOrReplay(
  flags: FetchFlags,
  settings: CrawlSettings,
  live: (limit: number | undefined) => Promise<FetchedContent>,
  replay: (store: ReturnType<typeof openStore>) => Promise<FetchedContent>,
): Promise<FetchedContent> {
  if (!flags.replay) return live(limitOf(flags.limit));
  const store = openStore(settings.data);
  try {
    return await replay(store);
  } finally {
    await store.close();
  }
}

/** `trawl fetch <target> [--limit N] [--replay] [--json]`. */
export async function fetchCommand(
  args: string[],
  flags: FetchFlags,
  settings: CrawlSettings,
  json: boolean,
  out: (line: string) => void,
): Promise<FetchedContent> {
  const target = args.join(' ');
  if (!target.trim())
    throw new UsageError('trawl fetch needs a target: a URL, search:<words> or any words, or an account (r/Minneapolis, https://bsky.app/profile/…)');
  const content = liveOrReplay(
    flags,
    settings,
    (limit) => fetch(target, { ...settings, limit }),
    (store) => store.fetch(target),
  );
  return output(content, json, out);
}

/** `trawl social <platform> <topic…> [--limit N] [--replay] [--json]`: hashtag or topic search on a platform. */
export async function socialCommand(
  args: string[],
  flags: FetchFlags,
  settings: CrawlSettings,
  json: boolean,
  out: (line: string) => void,
): Promise<FetchedContent> {
  const [platform, ...topics] = args;
  if (!platform || !PLATFORMS.includes(platform as SocialPlatform) || !topics.length)
    throw new UsageError(`trawl social needs a platform (${PLATFORMS.join(', ')}) and topics: trawl social bluesky '#housing' Minneapolis`);
  const content = liveOrReplay(
    flags,
    settings,
    (limit) => searchSocial(platform as SocialPlatform, topics, { ...settings, limit }),
    (store) => store.searchSocial(platform as SocialPlatform, topics),
  );
  return output(content, json, out);
}
