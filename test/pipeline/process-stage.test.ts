import { test } from 'node:test';
import assert from 'node:assert/strict';
import { processStage } from '../../shared/pipeline/stages/process-stage.js';
import type { FetchOutcome } from '../../shared/pipeline/stages/fetch-stage.js';
import type { FetchResponse } from '../../shared/fetch/http-fetcher.js';
import { testContext } from '../context.js';
import { InlineExtractor } from '../../shared/extract/extractor.js';
import { AddressRefusedError, NonRetryableFetchError, RetryableFetchError } from '../../shared/errors.js';
import type { FrontierRow, PageRecord } from '../../shared/ports/index.js';
import { frontierRow, tempDir } from '../../support/helpers.js';
import { makePdf } from '../../support/web/pdf.js';
import { urlId } from '../../shared/url/canonical.js';

const HTML = Buffer.from(
  '<html><head><title>An article</title></head><body><main><h1>An article</h1>' +
    '<p>Enough words about crawling politely to make a readable article with a paragraph or two of text in it.</p>' +
    '<p>A second paragraph, <a href="/next">the next article</a> and <a href="http://b.test/x">another site</a>.</p></main></body></html>',
);
const FEED = Buffer.from('<?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item><link>http://a.test/item1</link></item></channel></rss>');

function response(status: number, fields: Partial<FetchResponse> = {}): FetchResponse {
  return { url: 'http://a.test/page', status, headers: {}, body: null, truncated: false, mime: '', contentClass: null, wireBytes: 0, durationMs: 5, ...fields };
}
const body = (mime: string, contentClass: FetchResponse['contentClass'], bytes: Buffer) => ({
  headers: { 'content-type': mime },
  mime,
  contentClass,
  body: bytes,
});
const previous = { urlId: 'p', url: 'http://a.test/page', status: 200, contentHash: 'h0', etag: '"e"' } as PageRecord;

interface Case {
  name: string;
  outcome: (at: number) => FetchOutcome;
  attempts?: number;
  kind?: FrontierRow['kind'];
  /** The row's URL (its id then the URL's own), where the case turns on it. */
  url?: string;
  want: { state: string; reason?: string; retry?: boolean; page?: boolean; extract?: boolean; candidates?: string[]; host?: string };
}

const answered =
  (res: FetchResponse, extra: Partial<Extract<FetchOutcome, { kind: 'response' }>> = {}) =>
  (at: number) =>
    ({ kind: 'response', res, contentHash: res.body ? `h-${res.status}-${res.mime}` : undefined, at, ...extra }) as FetchOutcome;
const failed = (error: unknown) => (at: number) => ({ kind: 'error', error, message: String(error), at }) as FetchOutcome;

// Status × content kind: what the URL becomes, whether it goes back to the frontier, what is kept and followed.
const cases: Case[] = [
  {
    name: '200 HTML',
    outcome: answered(response(200, body('text/html', 'html', HTML))),
    want: { state: 'done', page: true, extract: true, candidates: ['http://a.test/next', 'http://b.test/x'], host: 'response' },
  },
  {
    name: '200 PDF',
    outcome: answered(response(200, body('application/pdf', 'pdf', makePdf(['A page of the PDF about crawling.'])))),
    want: { state: 'done', page: true, extract: true, candidates: [] },
  },
  {
    name: '200 plain text',
    outcome: answered(response(200, body('text/plain', 'text', Buffer.from('just text')))),
    want: { state: 'done', page: true, extract: false, candidates: [] },
  },
  {
    name: '200 RSS feed',
    outcome: answered(response(200, body('application/rss+xml', 'xml', FEED))),
    want: { state: 'done', page: false, candidates: ['http://a.test/item1'] },
  },
  {
    name: '200 a type not on the allow-list',
    outcome: answered(response(200, { mime: 'image/png', skipped: 'content-type' })),
    want: { state: 'skipped', reason: 'content-type', page: false },
  },
  {
    name: '301 with a Location',
    outcome: answered(response(301, { location: 'http://a.test/moved' })),
    want: { state: 'done', reason: 'redirect', page: false, candidates: ['http://a.test/moved'] },
  },
  {
    name: '301 to the same URL, its query in another order',
    url: 'http://a.test/page?b=2&a=1',
    outcome: answered(response(301, { location: 'http://a.test/page?a=1&b=2' })),
    want: { state: 'failed', reason: 'redirect-loop', page: false, candidates: [] },
  },
  { name: '302 without a Location', outcome: answered(response(302)), want: { state: 'failed', reason: 'redirect-without-location' } },
  { name: '304 with the stored page', outcome: answered(response(304), { previous }), want: { state: 'done', reason: 'unchanged', page: true } },
  { name: '404', outcome: answered(response(404, body('text/html', 'html', HTML))), want: { state: 'failed', reason: 'http-404', page: false } },
  { name: '503, attempts left', outcome: answered(response(503)), want: { state: 'queued', reason: 'http-503', retry: true } },
  { name: '503, the last attempt', attempts: 3, outcome: answered(response(503)), want: { state: 'failed', reason: 'http-503', retry: false } },
  {
    name: '429',
    outcome: answered(response(429, { headers: { 'retry-after': '5' } })),
    want: { state: 'queued', reason: 'http-429', retry: true, host: 'response' },
  },
  {
    name: 'a reset connection',
    outcome: failed(new RetryableFetchError('socket hang up')),
    want: { state: 'queued', reason: 'network-error', retry: true, host: 'network-error' },
  },
  {
    name: 'an unknown host',
    outcome: failed(new NonRetryableFetchError('ENOTFOUND')),
    want: { state: 'failed', reason: 'fetch-error', host: 'network-error' },
  },
  {
    name: 'a private address',
    outcome: failed(new AddressRefusedError('10.0.0.1 is private')),
    want: { state: 'failed', reason: 'address-refused', host: 'refused' },
  },
];

test('processStage: every status and content kind to its state, reason, retry, records and links', async () => {
  const { dir, cleanup } = tempDir();
  const ctx = testContext(dir, {}, { warcDir: undefined, extractor: new InlineExtractor({}), rendering: 'none' });
  try {
    const run = await ctx.store.createRun(['http://a.test/'], {}, 1);
    for (const [i, c] of cases.entries()) {
      const url = c.url ?? 'http://a.test/page';
      const row = frontierRow({ runId: run.id, urlId: c.url ? urlId(c.url) : `u${i}`, url, kind: c.kind ?? 'page', attempts: c.attempts ?? 0 });
      const result = await processStage(ctx, row, c.outcome(1_000 + i));
      const got = {
        state: result.state,
        reason: result.reason,
        retry: result.retry,
        page: !!result.page,
        extract: !!result.extract,
        candidates: result.candidates.map((x) => new URL(x.href, row.url).href),
        host: result.hostEvent?.kind,
      };
      const want = { ...got, ...c.want };
      assert.deepEqual(got, want, c.name);
      assert.equal(result.fetch?.urlId, row.urlId, `${c.name}: every outcome has its interaction record`);
    }
  } finally {
    await ctx.close();
    cleanup();
  }
});
