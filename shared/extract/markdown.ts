import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { BLOCK_TAGS, NEVER_CONTENT } from './content-rules.js';

/**
 * Markdown from the content nodes, written here rather than with turndown: turndown needs a DOM
 * (linkedom or domino, 19 ms/page just to parse) and its GFM table rule threw on nested tables under
 * linkedom. Headings (ATX), paragraphs, lists with nesting, fenced code with its language, block
 * quotes, GFM tables (nested tables flattened into their cell), links and images with absolute URLs,
 * no empty links, no runs of blank lines.
 */
export function toMarkdown(nodes: AnyNode[], pageUrl: string): string {
  const w = new Writer(pageUrl);
  for (const n of nodes) w.block(n, '');
  return w.finish();
}

const INLINE_MARK: Record<string, string> = { strong: '**', b: '**', em: '_', i: '_', del: '~~', s: '~~' };
const HEADING = /^h([1-6])$/;
/** Blocks for markdown: the block tags, but a line break and table parts are written inside their block. */
const BLOCKISH = new Set([...BLOCK_TAGS].filter((t) => !['br', 'caption', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th'].includes(t)));

function absolute(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  const h = href.trim();
  if (!h || /^(javascript|data|vbscript):/i.test(h) || h.startsWith('#')) return undefined;
  try {
    return new URL(h, base).href;
  } catch {
    return undefined;
  }
}

function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1');
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

class Writer {
  private readonly out: string[] = [];
  constructor(private readonly base: string) {}

  private paragraph(text: string, prefix: string): void {
    const t = text.trim();
    if (!t) return;
    this.out.push(
      t
        .split('\n')
        .map((l) => prefix + l)
        .join('\n'),
    );
  }

  /** Inline markdown of a node's children (text, emphasis, code, links, images, line breaks). */
  inline(node: AnyNode): string {
    if (isText(node)) return escapeInline(collapse(node.data));
    if (!isTag(node)) return '';
    if (NEVER_CONTENT.has(node.name)) return '';
    const inner = () => node.children.map((c) => this.inline(c)).join('');
    switch (node.name) {
      case 'br':
        return '\n';
      case 'img': {
        const src = absolute(node.attribs.src ?? node.attribs['data-src'], this.base);
        if (!src) return '';
        return `![${escapeInline(collapse(node.attribs.alt ?? '').trim())}](${src})`;
      }
      case 'a': {
        const text = inner().trim();
        const href = absolute(node.attribs.href, this.base);
        if (!text) return '';
        return href ? `[${text}](${href})` : text;
      }
      case 'code':
      case 'kbd':
      case 'samp': {
        const raw = collapse(rawTextOf(node));
        if (!raw.trim()) return '';
        const fence = raw.includes('`') ? '``' : '`';
        return `${fence}${raw}${fence}`;
      }
      default: {
        const mark = INLINE_MARK[node.name];
        const text = inner();
        if (!mark) return text;
        const t = text.trim();
        return t ? `${text.startsWith(' ') ? ' ' : ''}${mark}${t}${mark}${text.endsWith(' ') ? ' ' : ''}` : text;
      }
    }
  }

  /** Writes a block-level node; inline runs between blocks become paragraphs. */
  block(node: AnyNode, prefix: string): void {
    if (isText(node)) {
      this.paragraph(this.inline(node), prefix);
      return;
    }
    if (!isTag(node) || NEVER_CONTENT.has(node.name)) return;
    const heading = HEADING.exec(node.name);
    if (heading) {
      const text = collapse(this.inline(node)).trim();
      if (text) this.out.push(`${prefix}${'#'.repeat(Number(heading[1]))} ${text}`);
      return;
    }
    switch (node.name) {
      case 'p':
        return this.mixed(node, prefix);
      case 'hr':
        this.out.push(`${prefix}---`);
        return;
      case 'pre':
        return this.code(node, prefix);
      case 'blockquote':
        return this.children(node, `${prefix}> `);
      case 'ul':
      case 'ol':
        return this.list(node, prefix);
      case 'table':
        return this.table(node, prefix);
      case 'dt': {
        const text = collapse(this.inline(node)).trim();
        if (text) this.out.push(`${prefix}**${text}**`);
        return;
      }
      default:
        if (BLOCKISH.has(node.name)) return this.mixed(node, prefix);
        this.paragraph(this.inline(node), prefix);
    }
  }

  private children(node: Element, prefix: string): void {
    this.mixed(node, prefix);
  }

  /** Children that mix inline runs and blocks: each run of inline nodes is one paragraph. */
  private mixed(node: Element, prefix: string): void {
    let run = '';
    const flush = () => {
      this.paragraph(run.replace(/[ \t]*\n[ \t]*/g, '  \n').replace(/ {2,}(?!\n)/g, ' '), prefix);
      run = '';
    };
    for (const c of node.children) {
      if (isTag(c) && BLOCKISH.has(c.name)) {
        flush();
        this.block(c, prefix);
      } else run += this.inline(c);
    }
    flush();
  }

  private code(node: Element, prefix: string): void {
    const codeEl = node.children.find((c): c is Element => isTag(c) && c.name === 'code');
    const lang = /(?:^|\s)(?:language|lang)-([\w+#-]+)/.exec(`${codeEl?.attribs.class ?? ''} ${node.attribs.class ?? ''}`)?.[1] ?? '';
    const text = rawTextOf(node).replace(/^\n/, '').replace(/\s+$/, '');
    if (!text) return;
    const fence = text.includes('```') ? '~~~' : '```';
    this.out.push([`${fence}${lang}`, ...text.split('\n'), fence].map((l) => prefix + l).join('\n'));
  }

  private list(node: Element, prefix: string): void {
    const lines = this.listLines(node, 0);
    if (lines.length) this.out.push(lines.map((l) => prefix + l).join('\n'));
  }

  /** A list's lines, nested lists indented under their item, one list block in all. */
  private listLines(node: Element, depth: number): string[] {
    const ordered = node.name === 'ol';
    let n = Number(node.attribs.start ?? 1) || 1;
    const lines: string[] = [];
    const indent = '  '.repeat(depth);
    for (const li of node.children) {
      if (!isTag(li)) continue;
      if (li.name === 'ul' || li.name === 'ol') {
        lines.push(...this.listLines(li, depth + 1));
        continue;
      }
      let text = '';
      const nested: Element[] = [];
      for (const c of li.children) {
        if (isTag(c) && (c.name === 'ul' || c.name === 'ol')) nested.push(c);
        else if (isTag(c) && BLOCKISH.has(c.name)) text += ` ${this.inline(c)} `;
        else text += this.inline(c);
      }
      const item = collapse(text).trim();
      if (item) lines.push(`${indent}${ordered ? `${n++}.` : '-'} ${item}`);
      for (const sub of nested) lines.push(...this.listLines(sub, depth + 1));
    }
    return lines;
  }

  /** A GFM table: rows of cells, the first row as header; nested tables are flattened into their cell. */
  private table(node: Element, prefix: string): void {
    const rows: string[][] = [];
    const visitRows = (el: Element) => {
      for (const c of el.children) {
        if (!isTag(c)) continue;
        if (c.name === 'tr') {
          const cells = c.children.filter((x): x is Element => isTag(x) && (x.name === 'td' || x.name === 'th'));
          rows.push(cells.map((cell) => this.cell(cell)));
        } else if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot') visitRows(c);
      }
    };
    visitRows(node);
    const width = Math.max(0, ...rows.map((r) => r.length));
    const filled = rows.filter((r) => r.some((c) => c));
    if (!filled.length) return;
    if (width === 1 || filled.length === 1) {
      // A layout table of one column or one row is text, not data.
      for (const r of filled) for (const c of r) if (c) this.paragraph(c, prefix);
      return;
    }
    const line = (r: string[]) => `${prefix}| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
    const out = [line(filled[0]!), `${prefix}|${' --- |'.repeat(width)}`, ...filled.slice(1).map(line)];
    this.out.push(out.join('\n'));
  }

  private cell(cell: Element): string {
    let text = '';
    const walk = (n: AnyNode) => {
      if (isTag(n) && (n.name === 'table' || n.name === 'tr')) {
        for (const c of n.children) walk(c);
        text += ' ';
      } else if (isTag(n) && (n.name === 'td' || n.name === 'th' || n.name === 'tbody' || n.name === 'thead')) {
        for (const c of n.children) walk(c);
        text += ' ';
      } else if (isTag(n) && BLOCKISH.has(n.name)) {
        text += ` ${this.inline(n)} `;
      } else text += this.inline(n);
    };
    for (const c of cell.children) walk(c);
    return collapse(text).trim().replace(/\|/g, '\\|');
  }

  finish(): string {
    return this.out
      .join('\n\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
}

function rawTextOf(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (isTag(node)) {
    if (node.name === 'br') return '\n';
    return node.children.map(rawTextOf).join('');
  }
  return '';
}
