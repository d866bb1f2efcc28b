import { UsageError } from '../errors.js';
import type { TrawlStore } from '../library/store.js';
import { canonicalize } from '../url/canonical.js';
import { jsonLine } from './render.js';

function target(url: string | undefined, sub: string): string {
  const canonical = url ? canonicalize(url) : null;
  if (!canonical) throw new UsageError(`trawl graph ${sub} needs a URL: trawl graph ${sub} https://example.com/page`);
  return canonical;
}

/** `trawl graph top|inlinks <url>|outlinks <url>|unfetched`: link graph queries. */
export async function graphCommand(graph: TrawlStore, args: string[], limit: number, json: boolean, out: (line: string) => void): Promise<void> {
  const [sub, url] = args;
  if (sub === 'top') {
    for (const p of await graph.top(limit))
      out(
        json
          ? jsonLine({ type: 'page', ...p })
          : `${p.pagerank.toFixed(5)}  ${String(p.inlinks).padStart(4)} inlinks  ${String(p.hosts).padStart(3)} hosts  ${p.title ?? '(no title)'}  ${p.url}`,
      );
  } else if (sub === 'inlinks' || sub === 'outlinks') {
    const links = sub === 'inlinks' ? await graph.inlinks(target(url, sub)) : await graph.outlinks(target(url, sub));
    for (const l of links.slice(0, limit)) {
      const other = sub === 'inlinks' ? l.fromUrl : l.toUrl;
      out(json ? jsonLine({ type: 'link', ...l }) : `${l.section.padEnd(7)} ${other}  "${l.anchor}"${l.rel ? ` [${l.rel}]` : ''}\n        …${l.context}…`);
    }
  } else if (sub === 'unfetched') {
    for (const u of await graph.unfetched(limit))
      out(json ? jsonLine({ type: 'unfetched', ...u }) : `${String(u.hosts).padStart(3)} hosts  ${String(u.inlinks).padStart(4)} inlinks  ${u.url}`);
  } else {
    throw new UsageError(`unknown graph query ${JSON.stringify(sub ?? '')}: use top, inlinks <url>, outlinks <url> or unfetched`);
  }
}
