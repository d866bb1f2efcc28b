// The search server's query-vector cache in front of an OpenAI-compatible embeddings API on
// loopback: a repeated query is one request, documents are never cached, the oldest query goes first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAiEmbedder } from '../../shared/enrich/openai.js';
import { QueryEmbeddingCache } from '../../shared/enrich/query-cache.js';
import { letterVector, modelServer } from './model-servers.js';

test('a repeated query is embedded once; documents always go to the model; the least recently used query is dropped', async () => {
  const api = await modelServer({
    '/v1/embeddings': (body) => ({ body: { data: (body.input as string[]).map((t, index) => ({ index, embedding: letterVector(t, 16) })) } }),
  });
  try {
    const cache = new QueryEmbeddingCache(new OpenAiEmbedder('text-embedding-3-small', { baseUrl: `${api.origin}/v1`, apiKey: 'k' }), 2);
    const asked = () => api.seen.filter((r) => r.path === '/v1/embeddings').length;
    const [first] = await cache.embed(['compost heap'], 'query');
    const [again] = await cache.embed([' compost heap '], 'query');
    assert.equal(asked(), 1);
    assert.deepEqual([...again!], [...first!]);
    await cache.embed(['compost heap'], 'document');
    await cache.embed(['compost heap'], 'document');
    assert.equal(asked(), 3, 'documents are not cached');
    await cache.embed(['tomatoes'], 'query');
    await cache.embed(['compost heap'], 'query'); // used: now the most recent
    await cache.embed(['index funds'], 'query'); // drops "tomatoes", the least recently used
    assert.equal(asked(), 5);
    await cache.embed(['compost heap'], 'query');
    assert.equal(asked(), 5, 'still cached');
    await cache.embed(['tomatoes'], 'query');
    assert.equal(asked(), 6, 'dropped, asked again');
    assert.deepEqual([cache.hits, cache.misses], [3, 4]);
    assert.deepEqual(cache.stamp, new OpenAiEmbedder('text-embedding-3-small', { baseUrl: api.origin, apiKey: 'k' }).stamp, 'the model it fronts');
  } finally {
    await api.close();
  }
});
