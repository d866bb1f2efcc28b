/**
 * What one fetch says changed about its URL since the run before, and how much: the one decision
 * both stores make as pages commit (`contentChange`), and the rank shift at a run's end.
 */
import { hammingDistance } from '../dedupe/simhash.js';
import type { MetaField } from '../extract/meta-fields.js';
import type { ChangeKind, ChangeMeasure, ChangeRecord, ExtractRecord, FetchCommit } from '../ports/index.js';

/** What the store held for a URL before this fetch. */
export interface PreviousState {
  /** The run that last stored the page (or recorded its removal). */
  runId: number;
  /** The kind the URL's last content change had, when one was recorded (`removed` stays removed until it comes back). */
  lastKind?: ChangeKind;
  contentHash?: string;
  /** The text hash of its extraction, when it had one. */
  textHash?: string;
  /** The extraction itself: needed only when the text changed (the store reads it then). */
  extract?: Pick<ExtractRecord, 'textHash' | 'simhash' | 'markdown' | 'fields' | MetaField>;
}

export interface ContentChange {
  kind: ChangeKind;
  removedBy?: number;
  measure?: ChangeMeasure;
}

/** Statuses that say a page is gone. */
export const GONE_STATUSES: ReadonlySet<number> = new Set([404, 410]);

/**
 * The content kind of a committed fetch, or undefined when it says nothing about the page (a
 * redirect, a retry, a failure to fetch, a robots.txt refusal, a second pass of the same run).
 */
export function contentChange(previous: PreviousState | undefined, commit: FetchCommit): ContentChange | undefined {
  const status = commit.fetch?.status;
  if (status === undefined) return undefined;
  if (previous && previous.runId >= commit.runId) return undefined;
  const known = previous?.lastKind !== 'removed' ? previous : undefined;
  if (GONE_STATUSES.has(status)) return known ? { kind: 'removed', removedBy: status } : undefined;
  if (commit.fetch?.notModified) return known ? { kind: 'unchanged' } : undefined;
  const page = commit.page;
  if (!page?.contentHash || status < 200 || status >= 300) return undefined;
  if (!known?.contentHash) return { kind: 'new' };
  if (known.contentHash === page.contentHash) return { kind: 'unchanged' };
  // Other bytes, the same text (a timestamp in a comment, reordered attributes): unchanged.
  const after = commit.extract;
  if (after && known.textHash === after.textHash) return { kind: 'unchanged' };
  const before = known.extract;
  // Without an extraction on both sides (a PDF cut short, --extract links) the bytes are all there is to compare.
  return before && after ? { kind: 'changed', measure: measureChange(before, after) } : { kind: 'changed' };
}

/** The record of a content change, as both stores keep it. */
export function changeRecordOf(
  c: FetchCommit & { fetch: NonNullable<FetchCommit['fetch']> },
  change: ContentChange,
  previous: PreviousState | undefined,
  title?: string,
): ChangeRecord {
  return {
    runId: c.runId,
    urlId: c.urlId,
    url: c.fetch.url,
    kind: change.kind,
    at: c.fetch.fetchedAt,
    ...(previous ? { previousRunId: previous.runId } : {}),
    ...(title ? { title } : {}),
    ...(change.measure ? { measure: change.measure } : {}),
    ...(change.removedBy ? { removedBy: change.removedBy } : {}),
  };
}

const FIELDS: MetaField[] = ['title', 'description', 'author', 'published', 'modified', 'language', 'canonicalUrl', 'siteName', 'contentType'];

/** How much a page changed between two extractions. */
export function measureChange(before: NonNullable<PreviousState['extract']>, after: ExtractRecord): ChangeMeasure {
  const a = new Set(markdownBlocks(before.markdown));
  const b = new Set(markdownBlocks(after.markdown));
  let common = 0;
  for (const block of b) if (a.has(block)) common++;
  const total = a.size + b.size;
  const fieldsChanged: string[] = FIELDS.filter((f) => (before[f] ?? '') !== (after[f] ?? ''));
  const fa = before.fields ?? {};
  const fb = after.fields ?? {};
  for (const name of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort())
    if (JSON.stringify(fa[name]) !== JSON.stringify(fb[name])) fieldsChanged.push(`fields.${name}`);
  return {
    simhashDistance: hammingDistance(before.simhash, after.simhash),
    blocksChanged: total === 0 ? 0 : round3(1 - (2 * common) / total),
    blocksAdded: b.size - common,
    blocksRemoved: a.size - common,
    fieldsChanged,
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The text blocks of a page's markdown: paragraphs, headings, list items and table rows, whitespace folded. */
export function markdownBlocks(markdown: string): string[] {
  return markdown
    .split(/\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.|#{1,6}|\|)\s)/)
    .map((b) => b.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

export interface RankPoint {
  inlinks: number;
  pagerank: number;
}

/**
 * Whether a page's standing in the link graph moved enough to tell: its PageRank grew or shrank by
 * half or more and its inlinks changed. PageRank alone moves a little with every change anywhere in
 * the graph; a shift that no link of its own explains is the graph around it, not the page.
 */
export function rankShift(before: RankPoint, after: RankPoint): boolean {
  if (before.inlinks === after.inlinks) return false;
  const lo = Math.min(before.pagerank, after.pagerank);
  const hi = Math.max(before.pagerank, after.pagerank);
  return lo <= 0 ? hi > 0 : hi / lo >= 1.5;
}
