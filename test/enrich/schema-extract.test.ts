// Structured extraction to a JSON Schema: a shop of product pages crawled with an OpenAI-compatible
// model on loopback that reads each page's chunks as a model would be asked to (it finds the
// values in the chunk text it is sent and names the chunks), and answers one page wrongly twice
// and one wrongly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { enrich } from '../../shared/library/enrich.js';
import { enrichSummaryText } from '../../shared/cli/search-commands.js';
import { SchemaExtractor, leafPointers } from '../../shared/enrich/schema-extract.js';
import { extractSpecOf } from '../../shared/enrich/extract-spec.js';
import { OpenAiChat } from '../../shared/enrich/openai.js';
import { UsageError } from '../../shared/errors.js';
import { tempDir } from '../../support/helpers.js';
import { PRODUCTS, readProduct, SCHEMA, startShop } from './shop-site.js';
import { modelServer, type Scripted } from './model-servers.js';

const chat = (content: string): Scripted => ({
  body: { choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
});

/** The shop's model: summaries and tags as any, products read from the chunks; `wrong` pages answered badly. */
async function shopModel(wrong: Record<string, number>) {
  const asked = new Map<string, number>();
  const server = await modelServer({
    '/v1/chat/completions': (body) => {
      const system = body.messages[0].content as string;
      const user = body.messages[1].content as string;
      if (!system.startsWith('You extract structured data'))
        return chat(system.includes('tags') ? '["#ponds", "#garden", "#water"]' : 'A product for garden ponds.');
      const title = /^Title: (.*)$/m.exec(user)![1]!;
      const n = (asked.get(title) ?? 0) + 1;
      asked.set(title, n);
      const { data, sources } = readProduct(user);
      if (!data) return chat('{}');
      // A price given as words, against the schema's number.
      if (n <= (wrong[title] ?? 0)) return chat(JSON.stringify({ data: { ...data, price: 'about ninety' }, sources }));
      return chat(`Here it is:\n\`\`\`json\n${JSON.stringify({ data, sources })}\n\`\`\``);
    },
    '/v1/embeddings': (body) => ({ body: { data: (body.input as string[]).map((_: string, index: number) => ({ index, embedding: [1, 0, 0, 0] })) } }),
  });
  return { server, asked };
}

test(
  'a shop crawled to a schema: each product valid with the chunks its values came from; an answer invalid twice is kept as the error',
  { timeout: 120_000 },
  async () => {
    const shop = await startShop();
    // The liner is answered wrongly twice, the filter once.
    const { server: model, asked } = await shopModel({ 'Pond liner': 2, 'Pressure filter': 1 });
    const data = tempDir();
    try {
      await crawl([`${shop.origin}/`], {
        data: data.dir,
        allowPrivateNetwork: true,
        delayMs: 0,
        maxPages: 10,
        provider: 'openai',
        openaiBaseUrl: `${model.origin}/v1`,
        extractSchema: SCHEMA,
        extractPrompt: 'the product this page sells',
        env: { OPENAI_API_KEY: 'k' },
      });
      const store = openStore(data.dir);
      try {
        for (const p of PRODUCTS.filter((p) => p.slug !== 'liner')) {
          const url = `${shop.origin}/product/${p.slug}`;
          const x = (await store.enrichment(url))?.extracted;
          assert.ok(x && !x.error, `${p.name}: ${JSON.stringify(x)}`);
          assert.deepEqual(x.data, {
            name: p.name,
            price: Number(p.price),
            currency: p.currency,
            inStock: p.stock === 'In stock',
            specs: p.specs.map(([name, value]) => ({ name, value })),
          });
          // Every value names chunks the page's extraction stored, and the chunk holds the value.
          const chunks = new Map((await store.chunks(url)).map((c) => [c.id, c.text]));
          assert.deepEqual(Object.keys(x.sources!).sort(), leafPointers(x.data).sort());
          for (const [pointer, ids] of Object.entries(x.sources!))
            for (const id of ids) assert.ok(chunks.has(id), `${p.name} ${pointer}: chunk ${id} is the page's`);
          assert.match(chunks.get(x.sources!['/price']![0]!)!, new RegExp(`Price: ${p.price.replace('.', '\\.')}`));
          assert.equal(x.attempts, p.slug === 'filter' ? 2 : 1, `${p.name}: asked again only after an invalid answer`);
          assert.equal(x.inputTokens, 1000 * x.attempts, 'the tokens the provider counted');
        }
        const liner = (await store.enrichment(`${shop.origin}/product/liner`))?.extracted;
        assert.equal(liner?.data, undefined);
        assert.equal(liner?.attempts, 2);
        assert.match(liner!.error!, /after 2 attempts: \/price must be number/);
        assert.equal(asked.get('Pond liner'), 2, 'retried once, not more');
        // The retry told the model what was wrong.
        const extractions = model.seen.filter((r) => r.path.endsWith('/chat/completions') && /^You extract/.test(r.body.messages[0].content));
        const retry = extractions.filter((r) => /Title: Pressure filter/.test(r.body.messages[1].content))[1]!;
        assert.match(retry.body.messages[1].content, /Your previous answer was not valid:\n- \/price must be number/);
        // In search hits, with the chunks.
        const hit = (await store.search('pond pump flow', { mode: 'text' })).hits.find((h) => h.url.endsWith('/pond-pump'));
        assert.equal((hit?.extracted?.data as { price?: number } | undefined)?.price, 89.9);
        assert.ok(hit?.extracted?.sources?.['/price']);
      } finally {
        await store.close();
      }
      // Another prompt: the pages are extracted again, and only that (their text did not change).
      const before = model.seen.length;
      const again = await enrich({
        data: data.dir,
        provider: 'openai',
        openaiBaseUrl: `${model.origin}/v1`,
        extractSchema: SCHEMA,
        extractPrompt: 'the product, with its price',
        env: { OPENAI_API_KEY: 'k' },
      });
      const asks = model.seen
        .slice(before)
        // The preflight asks for the endpoint's models first: a GET with no body.
        .filter((r) => !r.path.endsWith('/models'))
        .map((r) => (r.path.endsWith('/embeddings') ? 'embed' : /^You extract/.test(r.body.messages[0].content) ? 'extract' : 'other'));
      assert.equal(asks.filter((a) => a !== 'extract').length, 0, `only the extraction is redone: ${asks.join(' ')}`);
      assert.equal(again.enriched, PRODUCTS.length + 1);
      assert.ok(again.tokens && again.tokens.input >= 1000 * (PRODUCTS.length + 1), JSON.stringify(again.tokens));
      assert.match(enrichSummaryText(again), /structured extraction used \d+ input and \d+ output tokens/);
    } finally {
      await Promise.all([shop.close(), model.close()]);
      data.cleanup();
    }
  },
);

test('a schema needs an LLM provider, and is checked before anything is crawled', async () => {
  const data = tempDir();
  try {
    await assert.rejects(
      crawl(['http://127.0.0.1:9/'], { data: data.dir, allowPrivateNetwork: true, extractSchema: SCHEMA, env: {} }),
      (err: unknown) => err instanceof UsageError && /extract schema needs an LLM provider: set --provider openai/.test(err.message),
    );
    await assert.rejects(
      crawl(['http://127.0.0.1:9/'], { data: data.dir, allowPrivateNetwork: true, provider: 'openai', extractSchema: { type: 'nope' }, env: {} }),
      (err: unknown) => err instanceof UsageError && /not a valid JSON Schema/.test(err.message),
    );
  } finally {
    data.cleanup();
  }
  assert.throws(() => extractSpecOf({ extractSchema: '/no/such/schema.json' }), /cannot be read/);
  assert.throws(() => extractSpecOf({ extractSchema: '{"type": ' }), /is not JSON/);
  assert.deepEqual(extractSpecOf({ extractSchema: ' {"type":"object"} ', extractPrompt: ' prices ' }), { schema: { type: 'object' }, prompt: 'prices' });
  assert.equal(extractSpecOf({}), undefined);
});

test('an answer with values from no chunk, or from a chunk the page lacks, is asked again', async () => {
  const answers = [
    { data: { name: 'A', price: 1, currency: 'EUR', inStock: true }, sources: { '/name': ['feedbeef'] } },
    { data: { name: 'A', price: 1, currency: 'EUR', inStock: true }, sources: {} },
  ];
  const model = await modelServer({ '/v1/chat/completions': () => chat(JSON.stringify(answers.shift())) });
  try {
    const x = await new SchemaExtractor(new OpenAiChat('m', { baseUrl: `${model.origin}/v1`, apiKey: 'k' }), { schema: SCHEMA }).extract({
      url: 'http://a.test/',
      title: 'A',
      markdown: 'A sells for 1 EUR and is in stock. '.repeat(10),
    });
    assert.equal(x.attempts, 2);
    assert.match(x.error!, /\/price names no chunk/);
    assert.match(model.seen[1]!.body.messages[1].content, /\/name names a chunk the page does not have \(\["feedbeef"\]\)/);
  } finally {
    await model.close();
  }
});
