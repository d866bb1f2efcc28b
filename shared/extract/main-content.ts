import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { textOf, type Doc } from './dom.js';

export interface MainContent {
  html: string;
  text: string;
  markdown: string;
  method: 'readability' | 'fallback';
  title?: string;
  byline?: string;
}

const BOILERPLATE =
  'nav, header, footer, aside, script, style, noscript, template, iframe, svg, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [aria-hidden="true"]';
/** Below this many characters Readability's "article" is usually a cookie banner or a fragment. */
const MIN_ARTICLE_CHARS = 140;

let turndown: TurndownService | undefined;
function markdownService(): TurndownService {
  if (!turndown) {
    turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
    turndown.use(gfm);
    turndown.remove(['script', 'style', 'noscript', 'template']);
  }
  return turndown;
}

/**
 * Markdown from an HTML fragment: ATX headings, fenced code, GFM tables. Given the parsed
 * fragment, turndown walks it directly instead of re-parsing the string with domino (measured:
 * 1.3 s of a 12 s crawl); the GFM table rule needs `table.rows`, which linkedom lacks, so
 * fragments with tables still go through the string.
 */
export function toMarkdown(html: string, parsed?: Element): string {
  const input = parsed && !parsed.querySelector('table') ? (parsed as unknown as HTMLElement) : html;
  return markdownService()
    .turndown(input)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Makes link and image URLs absolute, so the markdown stands on its own. */
export function absolutizeUrls(doc: Doc, pageUrl: string): void {
  for (const [selector, name] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of doc.querySelectorAll(selector)) {
      try {
        el.setAttribute(name, new URL(el.getAttribute(name) ?? '', pageUrl).href);
      } catch {
        // leave unparseable URLs as they are
      }
    }
  }
}

const BLOCK_TAGS = new Set([
  'P',
  'DIV',
  'LI',
  'TD',
  'TH',
  'TR',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'BR',
  'TABLE',
  'UL',
  'OL',
  'PRE',
  'BLOCKQUOTE',
  'SECTION',
  'ARTICLE',
  'DD',
  'DT',
  'FIGCAPTION',
  'HR',
]);

/** Text like innerText: block elements and table cells are separated, so words never run together. */
export function blockText(root: Node): string {
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) parts.push(node.textContent ?? '');
    else if (node.nodeType === 1) {
      const tag = (node as Element).tagName;
      if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') return;
      const block = BLOCK_TAGS.has(tag);
      if (block) parts.push(' ');
      for (let c = node.firstChild; c; c = c.nextSibling) walk(c);
      if (block) parts.push(' ');
    }
  };
  walk(root);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

function linkDensity(root: Element, textLength: number): number {
  let linkChars = 0;
  for (const a of root.querySelectorAll('a')) linkChars += textOf(a).length;
  return textLength ? linkChars / textLength : 1;
}

function fallback(doc: Doc): MainContent & { linkDensity: number } {
  const body = (doc.body ?? doc.documentElement).cloneNode(true) as Element;
  for (const el of body.querySelectorAll(BOILERPLATE)) el.remove();
  const html = body.innerHTML;
  const text = blockText(body);
  return { html, text, markdown: toMarkdown(html, body), method: 'fallback', linkDensity: linkDensity(body, text.length) };
}

function parseFragment(doc: Doc, html: string): Element {
  const holder = doc.createElement('div');
  holder.innerHTML = html;
  return holder;
}

/** Readability drops a heading that repeats the title; put it back so the content reads whole. */
function withHeading(content: MainContent, doc: Doc): MainContent {
  const h1 = textOf(doc.querySelector('h1'));
  if (!h1 || content.text.startsWith(h1) || content.text.slice(0, 300).includes(h1)) return content;
  return { ...content, text: `${h1} ${content.text}`, markdown: `# ${h1}\n\n${content.markdown}` };
}

/**
 * The main content of a page: Mozilla Readability, or when it finds no article, the body without
 * nav/header/footer/aside/script/style.
 */
export function extractMainContent(doc: Doc): MainContent {
  let article: ReturnType<Readability['parse']> = null;
  try {
    // Readability rewrites the tree it reads; it gets a copy so the fallback still sees the page.
    article = new Readability(doc.cloneNode(true) as Doc, { charThreshold: 300 }).parse();
  } catch {
    article = null; // a DOM quirk in one page must not lose the page: use the fallback
  }
  const rest = fallback(doc);
  const { linkDensity: restDensity, ...restContent } = rest;
  const fragment = article?.content ? parseFragment(doc, article.content) : undefined;
  const text = fragment ? blockText(fragment) : '';
  if (!article?.content || text.length < MIN_ARTICLE_CHARS) return withHeading(restContent, doc);
  // Readability sometimes discards real paragraphs of badly nested markup. When it keeps less
  // than 60 % of a body whose text is mostly not links, the cleaned body is the better answer.
  if (text.length < 0.6 * rest.text.length && restDensity < 0.15) return withHeading(restContent, doc);
  const content: MainContent = {
    html: article.content,
    text,
    markdown: toMarkdown(article.content, fragment),
    method: 'readability',
    title: article.title ?? undefined,
    byline: article.byline ?? undefined,
  };
  return withHeading(content, doc);
}
