import { UsageError } from '../errors.js';
import type { TrawlStore } from '../library/store.js';
import { canonicalize } from '../url/canonical.js';
import { jsonLine } from './render.js';

function target(url: string | undefined, sub: string): string {
  const canonical = url ? canonicalize(url) : null;
  if (!canonical) throw new UsageError(`trawl graph ${sub} needs a URL: trawl graph ${sub} https://example.com/page`);
  return canonical;
}

/**
 * `trawl graph top|inlinks <url>|outlinks <url>|unfetched`: link graph queries. Returns what to say
 * on stderr when nothing was found (the CLI then exits 1, as grep does), or undefined.
 */
export async function graphCommand(graph: TrawlStore, args: string[], limit: number, json: boolean, out: (line: string) => void): Promise<string | undefined> {
  const [sub, url] = args;
  if (sub === 'top') {
    const top = await graph.top(limit);
    if (top.length === 0) return 'no ranked page yet: ranks are computed when a crawl ends';
    for (const p of top)
      out(
        json
          ? jsonLine({ type: 'page', ...p })
          : `${p.pagerank.toFixed(5)}  ${aligned(p.inlinks, 4, 'inlink')}  ${aligned(p.hosts, 3, 'host')}  ${p.title ?? '(no title)'}  ${p.url}`,
      );
  } else if (sub === 'inlinks' || sub === 'outlinks') {
    const canonical = target(url, sub);
    const links = sub === 'inlinks' ? await graph.inlinks(canonical) : await graph.outlinks(canonical);
    if (links.length === 0)
      return (await graph.page(canonical))
        ? `no ${sub} of ${canonical} are stored`
        : `${canonical} is not a stored page: trawl graph top lists crawled pages, trawl graph unfetched the URLs seen but not fetched`;
    for (const l of links.slice(0, limit)) {
      const other = sub === 'inlinks' ? l.fromUrl : l.toUrl;
      out(json ? jsonLine({ type: 'link', ...l }) : `${l.section.padEnd(7)} ${other}  "${l.anchor}"${l.rel ? ` [${l.rel}]` : ''}\n        …${l.context}…`);
    }
  } else if (sub === 'unfetched') {
    const unfetched = await graph.unfetched(limit);
    if (unfetched.length === 0) return 'every URL the crawls saw was fetched (or refused)';
    for (const u of unfetched)
      out(json ? jsonLine({ type: 'unfetched', ...u }) : `${aligned(u.hosts, 3, 'host')}  ${aligned(u.inlinks, 4, 'inlink')}  ${u.url}`);
  } else {
    throw new UsageError(`unknown graph query ${JSON.stringify(sub ?? '')}: use top, inlinks <url>, outlinks <url> or unfetched`);
  }
  return undefined;
}

/** A count and its noun in a column: `  1 host `, ` 12 hosts`. */
function aligned(n: number, width: number, noun: string): string {
  return `${String(n).padStart(width)} ${n === 1 ? `${noun} ` : `${noun}s`}`;
}
