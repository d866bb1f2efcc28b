import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAiChat, OpenAiEmbedder, OPENAI_SEED } from '../../shared/enrich/openai.js';
import { PromptedGenerator, SUMMARY_SYSTEM, TAGS_SYSTEM } from '../../shared/enrich/prompts.js';
import { ProviderError, withRetry } from '../../shared/enrich/provider-error.js';
import { letterVector, modelServer } from './model-servers.js';

const doc = {
  url: 'https://garden.example/compost',
  title: 'Composting at home',
  text: 'A compost heap turns kitchen scraps into soil food. '.repeat(20),
  language: 'en',
};

function chatAnswer(content: string) {
  return {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    },
  };
}

async function openAiServer() {
  return modelServer({
    '/v1/chat/completions': () => chatAnswer('A compost heap turns kitchen scraps and garden waste into soil food within three months.'),
    '/v1/embeddings': (body) => ({
      body: {
        object: 'list',
        model: body.model,
        data: (body.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: letterVector(t, body.dimensions ?? 8) })).reverse(),
      },
    }),
  });
}

test('the OpenAI-compatible chat sends the versioned prompts at temperature 0 with a fixed seed, and validates the summary', async () => {
  const server = await openAiServer();
  try {
    const gen = new PromptedGenerator(new OpenAiChat('gpt-test', { baseUrl: `${server.origin}/v1/`, apiKey: 'sk-test' }));
    server.script('/v1/chat/completions', chatAnswer('Summary: A compost heap turns scraps into soil food in about three months.'));
    assert.equal(await gen.summarize(doc), 'A compost heap turns scraps into soil food in about three months.');
    const req = server.seen[0]!;
    assert.equal(req.headers.authorization, 'Bearer sk-test');
    assert.equal(req.body.model, 'gpt-test');
    assert.equal(req.body.temperature, 0);
    assert.equal(req.body.seed, OPENAI_SEED);
    assert.equal(req.body.messages[0].content, SUMMARY_SYSTEM);
    assert.match(req.body.messages[1].content, /^Title: Composting at home\nURL: https:\/\/garden.example\/compost\n\nA compost heap/);
    assert.equal(gen.summaryStamp.version, 'summary-v1');
    // A refusal is rejected, not stored.
    server.script('/v1/chat/completions', chatAnswer("I'm sorry, but I can't summarise this page."));
    await assert.rejects(gen.summarize(doc), (err: ProviderError) => err.failure === 'malformed' && /refused/.test(err.message));
  } finally {
    await server.close();
  }
});

test('tags are read from JSON or lists, repaired, deny-listed, and a second bad answer is rejected', async () => {
  const server = await openAiServer();
  try {
    const gen = new PromptedGenerator(new OpenAiChat('gpt-test', { baseUrl: `${server.origin}/v1` }));
    server.script('/v1/chat/completions', chatAnswer('```json\n["Composting", "#home", "kitchen scraps", "Soil Health", "#compost"]\n```'));
    assert.deepEqual(await gen.tag(doc), ['#composting', '#kitchen-scraps', '#soil-health', '#compost']);
    assert.equal(server.seen.at(-1)!.body.messages[0].content, TAGS_SYSTEM);
    // Too few usable tags: one repair turn that quotes the bad answer, then the repaired tags.
    server.script('/v1/chat/completions', chatAnswer('#home #login'), chatAnswer('#composting, #garden-waste, #soil'));
    assert.deepEqual(await gen.tag(doc), ['#composting', '#garden-waste', '#soil']);
    assert.match(server.seen.at(-1)!.body.messages[1].content, /Your previous answer was:\n#home #login/);
    server.script('/v1/chat/completions', chatAnswer('no idea'), chatAnswer('still nothing'));
    await assert.rejects(gen.tag(doc), (err: ProviderError) => err.failure === 'malformed');
  } finally {
    await server.close();
  }
});

test('throttling is retried with back-off that honours Retry-After; bad keys and malformed answers are not', async () => {
  const server = await openAiServer();
  try {
    const chat = new OpenAiChat('gpt-test', { baseUrl: `${server.origin}/v1` });
    const waits: number[] = [];
    const retry = { random: () => 0.5, sleep: async (ms: number) => void waits.push(ms), baseMs: 100 };
    server.script(
      '/v1/chat/completions',
      { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Rate limit reached', type: 'requests' } } },
      { status: 503, body: { error: { message: 'overloaded' } } },
    );
    const out = await withRetry(() => chat.complete({ system: 's', user: 'u', maxTokens: 10 }), retry);
    assert.match(out, /compost heap/);
    assert.deepEqual(waits, [2000, 100], 'Retry-After is a floor; then exponential back-off with jitter');
    server.script('/v1/chat/completions', { status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    await assert.rejects(
      withRetry(() => chat.complete({ system: 's', user: 'u', maxTokens: 10 }), retry),
      (err: ProviderError) => err.failure === 'rejected' && /401: Incorrect API key provided \(set TRAWL_OPENAI_API_KEY/.test(err.message),
    );
    server.script('/v1/chat/completions', { body: 'not json at all' }, { body: { choices: [] } });
    await assert.rejects(chat.complete({ system: 's', user: 'u', maxTokens: 10 }), (err: ProviderError) => err.failure === 'malformed');
    await assert.rejects(chat.complete({ system: 's', user: 'u', maxTokens: 10 }), /no choices\[0\]\.message\.content/);
    // Throttled for good: the last error comes out after the attempts run out.
    for (let i = 0; i < 3; i++) server.script('/v1/chat/completions', { status: 429, body: { error: { message: 'slow down' } } });
    await assert.rejects(
      withRetry(() => chat.complete({ system: 's', user: 'u', maxTokens: 10 }), { ...retry, attempts: 3 }),
      (err: ProviderError) => err.failure === 'throttled',
    );
  } finally {
    await server.close();
  }
});

test('embeddings come back in input order, normalised, with the requested dimension checked', async () => {
  const server = await openAiServer();
  try {
    const embedder = new OpenAiEmbedder('text-embedding-3-small', { baseUrl: `${server.origin}/v1`, dimension: 8, batch: 2 });
    const [a, b, c] = await embedder.embed(['aaa', 'bbb', 'abab'], 'document');
    assert.equal(server.seen.length, 2, 'two batches');
    assert.equal(server.seen[0]!.body.dimensions, 8);
    assert.equal(server.seen[0]!.body.encoding_format, 'float');
    assert.deepEqual([...a!].slice(0, 2), [1, 0]);
    assert.deepEqual([...b!].slice(0, 2), [0, 1]);
    assert.ok(Math.abs(c![0]! - Math.SQRT1_2) < 1e-6);
    assert.equal(embedder.stamp.version, 'd8');
    server.script('/v1/embeddings', { body: { data: [{ index: 0, embedding: [1, 2, 3] }] } });
    await assert.rejects(embedder.embed(['x'], 'document'), /3-dimension vector, expected 8/);
    server.script('/v1/embeddings', { body: { data: [] } });
    await assert.rejects(embedder.embed(['x'], 'document'), /has 0 vectors for 1 input/);
    // An endpoint that cannot be asked for a dimension (Ollama) sets it with its first answer.
    const native = new OpenAiEmbedder('nomic-embed-text', { baseUrl: `${server.origin}/v1` });
    await native.embed(['hello'], 'query');
    assert.equal(native.dimension, 8);
    assert.equal(server.seen.at(-1)!.body.dimensions, undefined);
  } finally {
    await server.close();
  }
});
