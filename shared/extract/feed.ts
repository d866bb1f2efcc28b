import { Parser } from 'htmlparser2';

export interface FeedItem {
  url: string;
  title?: string;
  published?: string;
}

export interface Feed {
  format: 'rss' | 'atom' | 'json' | 'unknown';
  title?: string;
  items: FeedItem[];
}

function parseJsonFeed(text: string): Feed {
  try {
    const data = JSON.parse(text) as { title?: string; items?: Array<{ url?: string; external_url?: string; title?: string; date_published?: string }> };
    const items = (data.items ?? []).flatMap((i) => {
      const url = i.url ?? i.external_url;
      return url ? [{ url, title: i.title, published: i.date_published }] : [];
    });
    return { format: 'json', title: data.title, items };
  } catch {
    return { format: 'unknown', items: [] };
  }
}

/** Parses RSS 2.0, Atom and JSON Feed into items (url, title, published). */
export function parseFeed(text: string, feedUrl: string): Feed {
  if (text.trimStart().startsWith('{')) return parseJsonFeed(text);
  const feed: Feed = { format: 'unknown', items: [] };
  let item: { url?: string; title?: string; published?: string } | undefined;
  let field: string | undefined;
  let buf = '';
  const parser = new Parser(
    {
      onopentag(raw, attrs) {
        const name = raw.toLowerCase();
        if (feed.format === 'unknown') {
          if (name === 'rss' || name === 'rdf:rdf') feed.format = 'rss';
          if (name === 'feed') feed.format = 'atom';
        }
        if (name === 'item' || name === 'entry') item = {};
        if (item && name === 'link' && attrs.href && (!attrs.rel || attrs.rel === 'alternate')) item.url ??= attrs.href;
        if (['link', 'title', 'pubdate', 'published', 'updated', 'dc:date', 'guid'].includes(name)) {
          field = name;
          buf = '';
        }
      },
      ontext(t) {
        if (field) buf += t;
      },
      onclosetag(raw) {
        const name = raw.toLowerCase();
        if (field === name) {
          const value = buf.trim();
          if (item) {
            if (name === 'link' && value) item.url ??= value;
            else if (name === 'guid' && /^https?:/.test(value)) item.url ??= value;
            else if (name === 'title') item.title ??= value;
            else if (name !== 'link' && name !== 'guid' && value) item.published ??= value;
          } else if (name === 'title') feed.title ??= value;
          field = undefined;
        }
        if ((name === 'item' || name === 'entry') && item) {
          if (item.url) {
            try {
              feed.items.push({ url: new URL(item.url, feedUrl).href, title: item.title, published: item.published });
            } catch {
              // an item whose link is not a URL is dropped
            }
          }
          item = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  return feed;
}
