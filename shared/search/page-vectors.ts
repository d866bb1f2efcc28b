import { createHash } from 'node:crypto';
import { withRetry, type RetryOptions } from '../enrich/provider-error.js';
import type { Providers } from '../enrich/provider-factory.js';
import { embeddingText, type EnrichDocument } from '../enrich/providers.js';
import { plainText, words } from '../enrich/text.js';
import type { EmbeddingMeta, EnrichCandidate, EnrichStore, VectorIndex } from '../ports/index.js';

/** What the Summarize and Index stages need: the store (truth), the vector sink, the providers. */
export interface EnrichDeps {
  enrich: EnrichStore;
  vectors: VectorIndex;
  providers: Providers;
  clock: () => number;
  retry?: RetryOptions;
}

/** The first 16 hex digits of the SHA-256 of a vector's bytes: how the store and the index agree on a vector. */
export function vectorHash(v: Float32Array): string {
  return createHash('sha256')
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest('hex')
    .slice(0, 16);
}

export function documentOf(c: EnrichCandidate): EnrichDocument {
  return { url: c.url, title: c.title, text: plainText(c.markdown), language: c.language };
}

/** Embeds a page from its document, summary and tags; returns the vector and the metadata the store keeps. */
export async function embedPage(
  deps: EnrichDeps,
  doc: EnrichDocument,
  summary: string,
  tags: string[],
): Promise<{ vector: Float32Array; meta: EmbeddingMeta }> {
  const [vector] = await withRetry(() => deps.providers.embedder.embed([embeddingText(doc, summary, tags)], 'document'), deps.retry);
  const { stamp } = deps.providers.embedder;
  return { vector: vector!, meta: { ...stamp, at: deps.clock(), dimension: vector!.length, hash: vectorHash(vector!) } };
}

/**
 * Pages with fewer words than this (title and text together) get no vector: an embedding of "a"
 * or of an empty page says nothing, and matched every query (a zero vector's distance came back
 * as a perfect match). They stay findable by full text.
 */
export const MIN_EMBED_WORDS = 8;

/** Whether a page has text enough for a vector. */
export function embeddable(doc: EnrichDocument): boolean {
  return words(`${doc.title ?? ''} ${doc.text}`).length >= MIN_EMBED_WORDS;
}

/** The embedding record of a page that has no vector (too little text): the model it was judged with, dimension 0. */
export function noVector(deps: Pick<EnrichDeps, 'providers' | 'clock'>): EmbeddingMeta {
  return { ...deps.providers.embedder.stamp, at: deps.clock(), dimension: 0, hash: 'none' };
}
