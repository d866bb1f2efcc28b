/** HTML builders for the synthetic web; pure functions of their inputs so identical calls give identical bytes. */

export function htmlPage(title: string, body: string, head = ''): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>\n<body><nav><a href="/">Home</a></nav>\n<main>${body}</main>\n<footer><a href="/about">About</a></footer></body></html>\n`;
}

const WORDS =
  'crawler polite archive graph content search index robots delay sitemap feed canonical duplicate page link anchor section summary vector fetch host queue frontier'.split(
    ' ',
  );

/** Deterministic filler prose, different for every seed. */
export function prose(seed: number, words = 120): string {
  let x = (seed * 2654435761) >>> 0;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

export function articleHtml(host: string, n: number, total: number, extraLinks = ''): string {
  const links = [1, 2, 3, 7]
    .map((k) => ((n + k - 1) % total) + 1)
    .map((k) => `<li><a href="/articles/${k}">Article ${k}</a></li>`)
    .join('');
  return htmlPage(`${host} article ${n}`, `<article><h1>Article ${n}</h1><p>${prose(n + host.length * 1000)}</p><ul>${links}</ul>${extraLinks}</article>`);
}

export function listPage(host: string, page: number, perPage: number, total: number): string {
  const first = (page - 1) * perPage + 1;
  const items: string[] = [];
  for (let k = first; k < first + perPage && k <= total; k++) items.push(`<li><a href="/articles/${k}">Article ${k}</a></li>`);
  const next = first + perPage <= total ? `<a href="/list?page=${page + 1}">Next</a>` : '';
  return htmlPage(`${host} list ${page}`, `<ul>${items.join('')}</ul>${next}`);
}

export function urlset(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `<url><loc>${u}</loc><lastmod>2026-11-01</lastmod></url>`).join('\n')}\n</urlset>\n`;
}

export function sitemapIndex(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `<sitemap><loc>${u}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
}

export function rss(title: string, items: Array<{ url: string; title: string }>): string {
  return `<?xml version="1.0"?>\n<rss version="2.0"><channel><title>${title}</title>\n${items.map((i) => `<item><title>${i.title}</title><link>${i.url}</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>`).join('\n')}\n</channel></rss>\n`;
}
