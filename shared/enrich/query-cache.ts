/**
 * A search server embeds the same queries again and again (a user paging through results, an agent
 * retrying, the UI's first search): their vectors are kept, the least recently used dropped first.
 * With a model provider each miss is a network call of tens to hundreds of milliseconds.
 */
import type { Embedder } from './providers.js';

/** Query vectors kept by a search server. 512 × 1,024 dimensions × 4 bytes: 2 MiB at most. */
export const QUERY_CACHE_SIZE = 512;

export class QueryEmbeddingCache implements Embedder {
  private readonly kept = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly size = QUERY_CACHE_SIZE,
  ) {}

  get stamp() {
    return this.embedder.stamp;
  }

  get dimension() {
    return this.embedder.dimension;
  }

  async embed(texts: string[], purpose: 'document' | 'query'): Promise<Float32Array[]> {
    if (purpose !== 'query' || texts.length !== 1) return this.embedder.embed(texts, purpose);
    // The model's stamp is in the key: a server whose provider changes never answers with another model's vector.
    const key = `${this.stamp.provider}\u0000${this.stamp.model}\u0000${this.stamp.version}\u0000${texts[0]!.trim()}`;
    const found = this.kept.get(key);
    if (found) {
      this.hits++;
      this.kept.delete(key);
      this.kept.set(key, found);
      return [found];
    }
    this.misses++;
    const [vector] = await this.embedder.embed(texts, purpose);
    this.kept.set(key, vector!);
    if (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value!);
    return [vector!];
  }
}
