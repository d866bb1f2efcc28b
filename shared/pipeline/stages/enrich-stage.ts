import { EnrichStepError } from '../../errors.js';
export { EnrichStepError } from '../../errors.js';
import { errorMessage } from '../../errors.js';
import { documentOf, embeddable, embedPage, noVector, type EnrichDeps } from '../../search/page-vectors.js';

export { documentOf, embedPage, vectorHash, type EnrichDeps } from '../../search/page-vectors.js';
import { withRetry } from '../../enrich/provider-error.js';
import type { Providers } from '../../enrich/provider-factory.js';
import { sameStamp, type EnrichDocument } from '../../enrich/providers.js';
import { contentStems } from '../../enrich/text.js';
import { pageFieldsOf, type EnrichCandidate, type EnrichFailure, type EnrichmentRecord, type StampedAt } from '../../ports/index.js';
import { listingShare } from '../../search/listing.js';
import type { SchemaExtraction, SchemaExtractor } from '../../enrich/schema-extract.js';

/**
 * Which pages a pass takes: `new` — never enriched, or their text changed since; `stale` — enriched
 * with another provider, model or prompt version than the configured ones (only the stale parts redone).
 */
export type EnrichMode = 'new' | 'stale';

/** The parts of a page's enrichment a pass redoes. */
export interface EnrichWork {
  summary: boolean;
  tags: boolean;
  embedding: boolean;
  /** Structured extraction to the crawl's schema (`--extract-schema`). */
  structured?: boolean;
}

/**
 * What a pass has to do for a page, or undefined: unchanged pages (same text hash, same stamps) are
 * never re-enriched. A page extracted to another schema (or never) is extracted again on its own.
 */
export function enrichWork(c: EnrichCandidate, providers: Providers, mode: EnrichMode): EnrichWork | undefined {
  const e = c.enrichment;
  const schema = providers.structured !== undefined;
  if (!e || e.textHash !== c.textHash) return mode === 'new' ? { summary: true, tags: true, embedding: true, structured: schema } : undefined;
  const structured = schema && e.extracted?.spec !== providers.structured!.hash;
  if (mode === 'new') return structured ? { summary: false, tags: false, embedding: false, structured } : undefined;
  const summary = !sameStamp(e.summaryStamp, providers.text.summaryStamp);
  const tags = !sameStamp(e.tagsStamp, providers.text.tagsStamp);
  // The embedding reads the summary and the tags, so it follows them.
  const embedding = summary || tags || !e.embedding || !sameStamp(e.embedding, providers.embedder.stamp);
  return summary || tags || embedding || structured ? { summary, tags, embedding, structured } : undefined;
}

/** Whether a page's enrichment was made with other models or prompts than the configured ones. */
export function isStale(e: EnrichmentRecord, providers: Providers): boolean {
  return (
    !sameStamp(e.summaryStamp, providers.text.summaryStamp) ||
    !sameStamp(e.tagsStamp, providers.text.tagsStamp) ||
    !e.embedding ||
    !sameStamp(e.embedding, providers.embedder.stamp)
  );
}

export type EnrichOutcome = { status: 'enriched'; record: EnrichmentRecord } | { status: 'failed'; failure: EnrichFailure };

async function step<T>(stage: EnrichFailure['stage'], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new EnrichStepError(stage, err);
  }
}

/** The Summarize stage's output: the page's summary and tags with their stamps (kept or made anew). */
export interface Summarized {
  summary: string;
  tags: string[];
  summaryStamp: StampedAt;
  tagsStamp: StampedAt;
  /** Milliseconds the summary and tag passes took (0 when both were kept). */
  tookMs: number;
  /** The structured extraction to the crawl's schema (made anew, or kept). */
  extracted?: SchemaExtraction;
}

/** The document with its stems' frequencies in the crawl, where the store keeps them. */
async function withCorpus(deps: EnrichDeps, doc: EnrichDocument): Promise<EnrichDocument> {
  if (!deps.enrich.termFrequencies) return doc;
  const stems = contentStems(`${doc.title} ${doc.text}`, doc.language);
  return { ...doc, corpus: await deps.enrich.termFrequencies(stems) };
}

/** Summarize: the summary and tag passes a page's work asks for (the old ones kept otherwise). Throws EnrichStepError. */
export async function summarizePage(deps: EnrichDeps, c: EnrichCandidate, work: EnrichWork): Promise<Summarized> {
  const { text } = deps.providers;
  const doc = documentOf(c);
  const old = c.enrichment;
  const stampNow = (s: typeof text.summaryStamp): StampedAt => ({ ...s, at: deps.clock() });
  const redoSummary = work.summary || !old;
  const redoTags = work.tags || !old;
  const { structured } = deps.providers;
  const started = performance.now();
  const summary = redoSummary ? await step('summary', () => withRetry(() => text.summarize(doc), deps.retry)) : old.summary;
  const tags = redoTags ? await step('tags', async () => withRetry(async () => text.tag(await withCorpus(deps, doc)), deps.retry)) : old.tags;
  const extracted = work.structured && structured ? await extractStructured(deps, structured, c) : old?.extracted;
  return {
    summary,
    tags,
    summaryStamp: redoSummary ? stampNow(text.summaryStamp) : old.summaryStamp,
    tagsStamp: redoTags ? stampNow(text.tagsStamp) : old.tagsStamp,
    tookMs: Math.round(performance.now() - started),
    ...(extracted ? { extracted } : {}),
  };
}

/**
 * The page's values for the crawl's schema. A provider failure that passes is retried as any;
 * one that does not, like an answer invalid twice, is kept as the extraction's error: the page's
 * summary, tags and index go on.
 */
async function extractStructured(deps: EnrichDeps, structured: SchemaExtractor, c: EnrichCandidate): Promise<SchemaExtraction> {
  try {
    return await withRetry(() => structured.extract({ url: c.url, title: c.title, markdown: c.markdown }), deps.retry);
  } catch (err) {
    return {
      error: errorMessage(err),
      attempts: 1,
      provider: structured.provider,
      model: structured.model,
      inputTokens: 0,
      outputTokens: 0,
      spec: structured.hash,
    };
  }
}

/**
 * Index: the embedding (when the work asks for one), the store record (the truth, with the full
 * text), then the vector. Throws EnrichStepError.
 */
export async function indexPage(deps: EnrichDeps, c: EnrichCandidate, work: EnrichWork, s: Summarized): Promise<EnrichmentRecord> {
  const doc = documentOf(c);
  const old = c.enrichment;
  const started = performance.now();
  const thin = !embeddable(doc);
  const embedded = !thin && (work.embedding || !old?.embedding) ? await step('embedding', () => embedPage(deps, doc, s.summary, s.tags)) : undefined;
  const { tookMs: summarizeMs, ...summarized } = s;
  const record: EnrichmentRecord = {
    urlId: c.urlId,
    url: c.url,
    host: c.host,
    title: c.title,
    textHash: c.textHash,
    ...summarized,
    ...pageFieldsOf(c),
    embedding: thin ? noVector(deps) : (embedded?.meta ?? old?.embedding),
    updatedAt: deps.clock(),
    listing: listingShare(c.markdown),
    ...(s.extracted ? { extracted: s.extracted } : {}),
    // A Summarize result from an older Step Functions execution has no tookMs: count the embedding alone.
    tookMs: (summarizeMs ?? 0) + Math.round(performance.now() - started),
  };
  await step('index', async () => {
    await deps.enrich.putEnrichment(record, doc.text);
    // A page that became too thin loses the vector it had.
    if (thin && old?.embedding && old.embedding.dimension > 0) await deps.vectors.delete([c.urlId]);
    if (!embedded) return;
    await deps.vectors.upsert([
      {
        id: c.urlId,
        vector: embedded.vector,
        model: deps.providers.embedder.stamp.model,
        hash: embedded.meta.hash,
        metadata: { host: c.host, language: c.language, published: c.published, tags: s.tags },
      },
    ]);
  });
  return record;
}

/** Records a failed page in the dead-letter list with its stage and error. */
export async function deadLetter(deps: EnrichDeps, c: Pick<EnrichCandidate, 'urlId' | 'url'>, err: unknown): Promise<EnrichFailure> {
  const stage = err instanceof EnrichStepError ? err.stage : 'index';
  const error = errorMessage(err instanceof EnrichStepError ? err.error : err);
  const failure: EnrichFailure = { urlId: c.urlId, url: c.url, stage, error, attempts: 1, failedAt: deps.clock() };
  await deps.enrich.recordEnrichFailure(failure);
  return failure;
}

/**
 * Summarize then Index for one page. A failure of any step is recorded in the dead-letter list with
 * its stage and error; the caller goes on with the next page.
 */
export async function enrichPage(deps: EnrichDeps, c: EnrichCandidate, work: EnrichWork): Promise<EnrichOutcome> {
  try {
    return { status: 'enriched', record: await indexPage(deps, c, work, await summarizePage(deps, c, work)) };
  } catch (err) {
    return { status: 'failed', failure: await deadLetter(deps, c, err) };
  }
}

/** What one enrichment pass did (`trawl enrich`, `crawl --enrich`, the library's `enrich()`). */
export interface EnrichRunResult {
  mode: EnrichMode;
  /** Pages the store holds that could be enriched. */
  candidates: number;
  enriched: number;
  /** Already enriched from the same text with the same models: not touched. */
  unchanged: number;
  failed: number;
  /** Enriched with other models or prompts; `trawl enrich --stale` redoes them. */
  stale: number;
  /** Enriched once, no longer searchable (now a duplicate, noindex, or gone): taken out of both sinks. */
  retired: number;
  failures: EnrichFailure[];
  seconds: number;
  /** Tokens the structured extractions of this pass used, as the provider counted them. */
  tokens?: { input: number; output: number };
  /** A signal stopped the pass before every candidate was done: what was enriched is kept. */
  stopped?: boolean;
}
