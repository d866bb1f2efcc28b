import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BedrockChat, TitanEmbedder } from '../../shared/enrich/bedrock.js';
import { PromptedGenerator } from '../../shared/enrich/prompts.js';
import { ProviderError, withRetry } from '../../shared/enrich/provider-error.js';
import { createProviders, preflightProvider } from '../../shared/enrich/provider-factory.js';
import { UsageError } from '../../shared/errors.js';
import { letterVector, modelServer } from './model-servers.js';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' };
const doc = { url: 'https://garden.example/compost', title: 'Composting at home', text: 'A compost heap turns kitchen scraps into soil food. '.repeat(10) };

function converse(text: string) {
  return {
    body: {
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
      metrics: { latencyMs: 42 },
    },
  };
}

function awsError(status: number, type: string, message: string) {
  return { status, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` }, body: { message } };
}

async function bedrockServer() {
  return modelServer(
    {
      '/model/[^/]+/converse': () => converse('["#composting", "#kitchen-scraps", "#soil"]'),
      '/model/[^/]+/invoke': (body) => ({ body: { embedding: letterVector(body.inputText as string, body.dimensions as number), inputTextTokenCount: 12 } }),
    },
    'h2',
  );
}

test('Bedrock Converse carries the model id, system prompt and temperature 0; its answers are validated', async () => {
  const server = await bedrockServer();
  try {
    const chat = new BedrockChat('anthropic.claude-3-haiku-20240307-v1:0', { endpoint: server.origin, region: 'us-east-1', credentials });
    const gen = new PromptedGenerator(chat);
    assert.deepEqual(await gen.tag(doc), ['#composting', '#kitchen-scraps', '#soil']);
    const req = server.seen[0]!;
    assert.equal(req.path, '/model/anthropic.claude-3-haiku-20240307-v1:0/converse');
    assert.match(String(req.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    assert.equal(req.body.inferenceConfig.temperature, 0);
    assert.match(req.body.system[0].text, /topic tags/);
    assert.match(req.body.messages[0].content[0].text, /^Title: Composting at home/);
    server.script('/model/[^/]+/converse', converse('A compost heap turns kitchen scraps into soil food within three months.'));
    assert.match(await gen.summarize(doc), /^A compost heap/);
    server.script('/model/[^/]+/converse', { body: { output: { message: { role: 'assistant', content: [] } }, stopReason: 'max_tokens' } });
    await assert.rejects(gen.summarize(doc), /answered with no text \(stop reason max_tokens\)/);
  } finally {
    await server.close();
  }
});

test('Bedrock throttling is retried; access errors name the fix and are not retried', async () => {
  const server = await bedrockServer();
  try {
    const chat = new BedrockChat('anthropic.claude-3-haiku-20240307-v1:0', { endpoint: server.origin, region: 'us-east-1', credentials });
    const waits: number[] = [];
    const retry = { random: () => 1, sleep: async (ms: number) => void waits.push(ms), baseMs: 50 };
    server.script(
      '/model/[^/]+/converse',
      awsError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
      awsError(503, 'ServiceUnavailableException', 'busy'),
    );
    assert.match(await withRetry(() => chat.complete({ system: 's', user: 'u', maxTokens: 5 }), retry), /composting/);
    assert.deepEqual(waits, [50, 100]);
    assert.equal(server.seen.length, 3, 'the SDK itself does not retry on top of withRetry');
    server.script('/model/[^/]+/converse', awsError(403, 'AccessDeniedException', "You don't have access to the model with the specified model ID."));
    await assert.rejects(
      withRetry(() => chat.complete({ system: 's', user: 'u', maxTokens: 5 }), retry),
      (err: ProviderError) => {
        return err.failure === 'rejected' && /AccessDeniedException.*enable the model in the Bedrock console/.test(err.message);
      },
    );
    assert.equal(server.seen.length, 4);
  } finally {
    await server.close();
  }
});

test('Titan V2 embeddings ask for the configured dimension and reject a wrong one', async () => {
  const server = await bedrockServer();
  try {
    const titan = new TitanEmbedder('amazon.titan-embed-text-v2:0', 256, { endpoint: server.origin, region: 'us-east-1', credentials });
    const [v] = await titan.embed(['abc'], 'document');
    assert.equal(v!.length, 256);
    const req = server.seen[0]!;
    assert.equal(req.path, '/model/amazon.titan-embed-text-v2:0/invoke');
    assert.deepEqual(req.body, { inputText: 'abc', dimensions: 256, normalize: true });
    assert.deepEqual(titan.stamp, { provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', version: 'd256' });
    server.script('/model/[^/]+/invoke', { body: { embedding: [0.1, 0.2] } });
    await assert.rejects(
      titan.embed(['abc'], 'document'),
      (err: ProviderError) => err.failure === 'malformed' && /2-dimension vector, expected 256/.test(err.message),
    );
    server.script('/model/[^/]+/invoke', awsError(400, 'ValidationException', 'Malformed input request'));
    await assert.rejects(titan.embed(['abc'], 'document'), (err: ProviderError) => err.failure === 'rejected');
  } finally {
    await server.close();
  }
});

test('the provider setting picks Bedrock with its default models, or the configured ones', () => {
  const base = { chatModel: '', embedModel: '', embedDimension: 0, openaiBaseUrl: 'https://api.openai.com/v1', bedrockRegion: '' };
  const bedrock = createProviders({ ...base, provider: 'bedrock' }, { AWS_REGION: 'eu-west-1' });
  assert.deepEqual(bedrock.text.summaryStamp, { provider: 'bedrock', model: 'anthropic.claude-3-haiku-20240307-v1:0', version: 'summary-v1' });
  assert.deepEqual(bedrock.embedder.stamp, { provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', version: 'd512' });
  const custom = createProviders({ ...base, provider: 'bedrock', chatModel: 'amazon.nova-lite-v1:0', embedDimension: 1024 }, {});
  assert.equal(custom.text.tagsStamp.model, 'amazon.nova-lite-v1:0');
  assert.equal(custom.embedder.dimension, 1024);
  const local = createProviders({ ...base, provider: 'local' }, {});
  assert.deepEqual(local.embedder.stamp, { provider: 'local', model: 'hash-c345-512', version: 'hash-v1' });
});

test('the Bedrock preflight resolves the AWS credentials the SDK would sign with, and refuses with what to set when there are none', async () => {
  const keys = [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_SHARED_CREDENTIALS_FILE',
    'AWS_CONFIG_FILE',
    'AWS_EC2_METADATA_DISABLED',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  ];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  const settings = { provider: 'bedrock' as const, openaiBaseUrl: 'https://api.openai.com/v1', bedrockRegion: 'eu-west-1' };
  try {
    for (const k of keys) delete process.env[k];
    // Nowhere to find credentials: no keys, no profile files, no instance metadata.
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/credentials';
    process.env.AWS_CONFIG_FILE = '/nonexistent/config';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    await assert.rejects(
      preflightProvider(settings, process.env),
      (err: unknown) =>
        err instanceof UsageError &&
        /--provider bedrock has no AWS credentials to sign with .*set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/.test(err.message),
    );
    process.env.AWS_ACCESS_KEY_ID = 'AKIDTEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
    await preflightProvider(settings, process.env);
  } finally {
    for (const k of keys)
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
});
