// The page workflow's Summarize and Index steps as functions: what they skip, what they store, and
// how a throttled model goes back to Step Functions until its last retry, then to the dead letters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProviders } from '../../shared/enrich/provider-factory.js';
import { indexStep, ModelThrottledError, summarizeStep, THROTTLE_RETRIES, type EnrichStepEvent } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { withFixtureCrawl } from '../../support/search/fixture-site.js';
import { letterVector, modelServer, pagesModelServer } from '../enrich/model-servers.js';
import { TAGS_SYSTEM } from '../../shared/enrich/prompts.js';
import { resolveSettings } from '../../shared/cli/args.js';

test('Summarize and Index: skip what is not searchable or unchanged, store the record then the vector, and hand throttling to Step Functions until the last retry', async () => {
  const server = await pagesModelServer(
    ['#bread', '#baking', '#fermentation'],
    (title) => `${title}: the steps, the times and the temperatures.`,
    (title) => (/flat bicycle tyre/i.test(title) ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } } : undefined),
  );
  try {
    await withFixtureCrawl(server.origin, async (settings, local) => {
      const deps = { enrich: local.enrich, vectors: local.vectors, providers: createProviders(settings, {}), clock: Date.now, retry: { attempts: 1 } };
      const candidates = await local.enrich.enrichCandidates('', 100);
      const idOf = (path: string) => candidates.find((c) => new URL(c.url).pathname === path)!.urlId;
      const event = (urlId: string, retry = 0, results: Record<string, unknown> = { Extract: { state: 'done' } }) =>
        ({ task: { row: { urlId }, results }, retry }) as unknown as EnrichStepEvent;

      const bread = idOf('/sourdough-bread');
      assert.equal((await summarizeStep(deps, event(bread, 0, { Extract: { state: 'failed' } }))).status, 'skipped');
      assert.equal((await summarizeStep(deps, event('not-a-page'))).status, 'skipped');
      const summarized = await summarizeStep(deps, event(bread));
      assert.equal(summarized.status, 'summarized');
      assert.equal(await local.enrich.enrichCandidate(bread).then((c) => c?.enrichment), undefined, 'Summarize stores nothing: Index writes the record');
      // Summarize read older text than the page now holds: Index leaves it to the newer fetch's workflow.
      const stale = { ...summarized, textHash: 'an older text' };
      assert.equal((await indexStep(deps, event(bread, 0, { Extract: { state: 'done' }, Summarize: stale }))).status, 'skipped');
      const indexed = await indexStep(deps, event(bread, 0, { Extract: { state: 'done' }, Summarize: summarized }));
      assert.deepEqual(indexed, { urlId: bread, status: 'indexed', embedded: true });
      const record = (await local.enrich.enrichCandidate(bread))!.enrichment!;
      assert.deepEqual(record.tags, ['#bread', '#baking', '#fermentation']);
      assert.equal((await local.vectors.list(undefined, 100)).entries.find((v) => v.id === bread)?.hash, record.embedding!.hash);
      // The next fetch of the same text: nothing to do.
      const again = await summarizeStep(deps, event(bread));
      assert.equal(again.status, 'unchanged');
      assert.equal((await indexStep(deps, event(bread, 0, { Extract: { state: 'done' }, Summarize: again }))).status, 'unchanged');

      const tyre = idOf('/flat-tyre');
      for (let retry = 0; retry < THROTTLE_RETRIES; retry++) {
        await assert.rejects(summarizeStep(deps, event(tyre, retry)), (e: unknown) => e instanceof ModelThrottledError && e.name === 'ModelThrottled');
      }
      assert.deepEqual(await local.enrich.enrichFailures(), [], 'no dead letter while Step Functions still retries');
      const last = await summarizeStep(deps, event(tyre, THROTTLE_RETRIES));
      assert.equal(last.status, 'failed');
      const [failure] = await local.enrich.enrichFailures();
      assert.equal(failure?.urlId, tyre);
      assert.equal(failure?.stage, 'summary');
      assert.match(failure!.error, /429: slow down/);
    });
  } finally {
    await server.close();
  }
});

test("Summarize extracts the page to the crawl's schema (the cloud's step, the deployment's TRAWL_EXTRACT_SCHEMA), and Index stores it with the record", async () => {
  const server = await modelServer({
    '/v1/chat/completions': (body) => {
      const [system, user] = [body.messages[0].content as string, body.messages[1].content as string];
      const title = /^Title: (.*)$/m.exec(user)![1]!;
      const chunk = /^\[([0-9a-f]+)\]$/m.exec(user)?.[1];
      const content = system.startsWith('You extract')
        ? JSON.stringify({ data: { title }, sources: { '/title': [chunk] } })
        : system === TAGS_SYSTEM
          ? '["#bread", "#baking", "#fermentation"]'
          : `${title}: the steps.`;
      return { body: { choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 300, completion_tokens: 9 } } };
    },
    '/v1/embeddings': (body) => ({ body: { data: (body.input as string[]).map((t, index) => ({ index, embedding: letterVector(t, 16) })) } }),
  });
  try {
    await withFixtureCrawl(server.origin, async (settings, local) => {
      // The Summarize function's providers, from its environment as the construct sets it.
      const env = { TRAWL_EXTRACT_SCHEMA: JSON.stringify({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }) };
      const providers = createProviders({ ...settings, extractSchema: resolveSettings({}, env).extractSchema }, {});
      assert.ok(providers.structured, 'the schema came from the environment');
      const deps = { enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now, retry: { attempts: 1 } };
      const bread = (await local.enrich.enrichCandidates('', 100)).find((c) => new URL(c.url).pathname === '/sourdough-bread')!;
      const event = (results: Record<string, unknown>) => ({ task: { row: { urlId: bread.urlId }, results }, retry: 0 }) as unknown as EnrichStepEvent;
      // Summarize's result crosses the page workflow as JSON.
      const summarized = JSON.parse(JSON.stringify(await summarizeStep(deps, event({ Extract: { state: 'done' } })))) as Record<string, unknown>;
      assert.equal(summarized.status, 'summarized');
      await indexStep(deps, event({ Extract: { state: 'done' }, Summarize: summarized }));
      const x = (await local.enrich.enrichCandidate(bread.urlId))!.enrichment!.extracted!;
      assert.deepEqual(x.data, { title: bread.title });
      const chunks = (await local.store.chunks(bread.urlId)).map((c) => c.id);
      assert.ok(chunks.includes(x.sources!['/title']![0]!), 'the value names a chunk of the page');
      assert.equal(x.inputTokens, 300);
    });
  } finally {
    await server.close();
  }
});
