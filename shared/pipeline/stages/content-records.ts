import { NEAR_DUPLICATE_DISTANCE } from '../../dedupe/simhash.js';
import type { PageExtraction } from '../../extract/extract-page.js';
import type { TextParts } from '../../extract/run-extract.js';
import type { PdfText } from '../../extract/pdf.js';
import { countWords, readingTimeMinutes } from '../../extract/metadata.js';
import { metaFieldsOf } from '../../extract/meta-fields.js';
import type { ChunkRecord, EdgeRecord, ExtractRecord, FrontierRow } from '../../ports/index.js';
import type { CrawlContext } from './context.js';

/** What the store keeps of an extraction, HTML or PDF. */
export type ExtractionCore = Pick<PageExtraction, 'metadata' | 'markdown' | 'simhash' | 'textHash' | 'chunks' | 'fields'> & { method: string };

/** What the extraction notes about itself beside the metadata: bounds cut, a guessed charset, parts that failed. */
export interface ExtractionNotes {
  cuts?: unknown[];
  charset?: { declared: string; used: string; invalidRatio: number };
  problems?: Array<{ part: string; error: string }>;
}

/** The stored form of an extraction, with near- and exact-duplicate flags looked up in the store and among the pages in flight. */
export async function extractRecords(
  ctx: Pick<CrawlContext, 'inFlight'> & { store: Pick<CrawlContext['store'], 'findNearDuplicate' | 'findTextDuplicate'> },
  row: FrontierRow,
  snapshot: string,
  x: ExtractionCore,
  { notes = {}, pdfPages }: { notes?: ExtractionNotes; pdfPages?: number } = {},
): Promise<{ extract: ExtractRecord; chunks: ChunkRecord[] }> {
  let near: { urlId: string; distance: number } | undefined;
  let textDuplicateOf: string | undefined;
  if (x.markdown.length > 0) {
    // Claimed before the store is asked, so pages processed at once find each other in the order they got here.
    const inFlight = ctx.inFlight?.claim(row.urlId, x.simhash, x.textHash, NEAR_DUPLICATE_DISTANCE);
    // What the store holds was committed first: it is the original when there is one.
    near = (await ctx.store.findNearDuplicate(x.simhash, row.urlId, NEAR_DUPLICATE_DISTANCE)) ?? inFlight?.near;
    textDuplicateOf = (await ctx.store.findTextDuplicate(x.textHash, row.urlId)) ?? inFlight?.text;
    ctx.inFlight?.mark(row.urlId, near !== undefined, textDuplicateOf !== undefined);
  }
  const m = x.metadata;
  const extract: ExtractRecord = {
    urlId: row.urlId,
    runId: row.runId,
    snapshot,
    ...metaFieldsOf(m),
    wordCount: m.wordCount,
    readingMinutes: m.readingTimeMinutes,
    method: x.method,
    markdown: x.markdown,
    textHash: x.textHash,
    simhash: x.simhash,
    nearDuplicateOf: near?.urlId,
    nearDuplicateDistance: near?.distance,
    textDuplicateOf,
    pdfPages,
    metadata: { ...m, ...definedNotes(notes) },
    ...(x.fields ? { fields: x.fields } : {}),
  };
  const chunks = x.chunks.map((c, seq): ChunkRecord => ({
    urlId: row.urlId,
    seq,
    id: c.id,
    position: c.position,
    tokens: c.tokens,
    text: c.text,
    prevId: c.prevId,
    nextId: c.nextId,
  }));
  return { extract, chunks };
}

/** A PDF's text as an extraction: the text is its markdown (its SimHash, text hash and chunks made where pages are extracted). */
export function pdfExtraction(pdf: PdfText, parts: TextParts): ExtractionCore {
  const wordCount = countWords(pdf.text);
  return {
    metadata: {
      title: pdf.title,
      wordCount,
      readingTimeMinutes: readingTimeMinutes(wordCount),
      contentType: 'PDF',
      sources: pdf.title ? { title: 'meta' } : {},
    },
    markdown: pdf.text,
    method: 'pdf',
    ...parts,
  };
}

/** Edges of one page snapshot from its links with context. */
export function edgesOf(row: FrontierRow, snapshot: string, x: Pick<PageExtraction, 'links' | 'nofollow'>): EdgeRecord[] {
  return x.links.map((l) => ({
    fromId: row.urlId,
    snapshot,
    toId: l.urlId,
    toUrl: l.url,
    anchor: l.anchorText.slice(0, 500),
    context: l.context,
    section: l.section,
    rel: l.rel.join(' '),
    internal: l.internal,
    nofollow: x.nofollow || l.rel.includes('nofollow'),
  }));
}

function definedNotes(notes: ExtractionNotes): ExtractionNotes {
  return Object.fromEntries(Object.entries(notes).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
}
