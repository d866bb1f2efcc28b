// The `guides` host: the search fixture's pages (support/search/corpus.ts) as a small site of
// real prose, so summaries, tags and search have sentences to work with.
import { DOCS } from '../search/corpus.js';
import type { HostSpec, WebResponse } from './hosts.js';

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article><h1>${escape(title)}</h1>${body}</article></main>
<footer><a href="/privacy">Privacy</a></footer></body></html>`;
}

const bySlug = new Map(DOCS.map((d) => [d.slug, d]));

/** A path of the guides site: robots.txt, the index linking every guide, a guide with its own links, or undefined. */
export function guideResponse(path: string): WebResponse | undefined {
  const html = (body: string): WebResponse => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body });
  if (path === '/robots.txt') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' };
  if (path === '/') {
    const list = DOCS.map((d) => `<li><a href="/${d.slug}">${escape(d.title)}</a></li>`).join('');
    return html(page('Household know-how', `<p>Guides to the house, the garden, money and health.</p><ul>${list}</ul>`));
  }
  const doc = bySlug.get(path.slice(1));
  if (!doc) return undefined;
  const paragraphs = doc.paragraphs.map((p) => `<p>${escape(p)}</p>`).join('');
  const links = (doc.links ?? []).map(([slug, anchor]) => `<p>See also <a href="/${slug}">${escape(anchor)}</a>.</p>`).join('');
  return html(page(doc.title, paragraphs + links));
}

export function guidesHost(): HostSpec {
  return {
    name: 'guides',
    disallowed: () => false,
    isTrap: () => false,
    handle: (req) => guideResponse(req.path) ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' },
  };
}
