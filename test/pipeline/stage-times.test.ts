// `--stage-times`: the done event carries the milliseconds of each stage, measured on the thread
// that did the work (the crawl thread, the extraction worker, the store's writer thread) and added
// up on the crawl thread; the CLI prints them per request. Off by default: no figures at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../../shared/library/crawl.js';
import type { CrawlEvent } from '../../shared/pipeline/stages/progress.js';
import { stageText } from '../../shared/cli/render.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';

const PAGES = 12;

async function site() {
  return serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? 0);
    const words = Array.from({ length: 200 }, (_, i) => `word${(i * (n + 3)) % 97}`).join(' ');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1><p>${words}.</p>${n < PAGES ? `<a href="/p/${n + 1}">next</a>` : ''}</article></body></html>`,
      );
  });
}

async function doneEvent(stageTimes: boolean): Promise<Extract<CrawlEvent, { type: 'done' }>> {
  const web = await site();
  const dir = tempDir();
  try {
    let done: Extract<CrawlEvent, { type: 'done' }> | undefined;
    await crawl([`${web.origin}/p/1`], {
      data: dir.dir,
      allowPrivateNetwork: true,
      delayMs: 0,
      maxRps: 0,
      maxDepth: 100,
      extractWorkers: 1,
      stageTimes,
      env: {},
      onEvent: (e) => void (e.type === 'done' && (done = e)),
    });
    assert.ok(done, 'a done event');
    return done;
  } finally {
    await web.close();
    dir.cleanup();
  }
}

test('--stage-times: the done event has each thread’s stages, and the CLI prints them per request', async () => {
  const done = await doneEvent(true);
  const stages = done.stages!;
  assert.ok(stages, 'stages on the done event');
  // The crawl thread, the extraction worker's parts, the writer thread's transactions, the WARC
  // (no blob files: this web's bodies are all small enough for the database).
  for (const stage of ['crawl thread', 'parse', 'links', 'main content', 'markdown', 'chunks', 'simhash', 'decode', 'SQLite', 'WARC'])
    assert.ok((stages[stage] ?? 0) > 0, `${stage}: ${JSON.stringify(stages)}`);
  assert.ok(stages['crawl thread']! >= stages.WARC!, 'the WARC is part of the crawl thread');
  const text = stageText(stages, done.summary.requests);
  assert.match(text, new RegExp(`^time by stage, ms per request \\(${done.summary.requests} requests\\):`));
  assert.match(text, /^ {2}crawl thread: \d+\.\d\d \(fetch, scheduling, records \d+\.\d\d, WARC \d+\.\d\d\)$/m);
  assert.match(text, /^ {2}extraction: parse \d+\.\d\d, .*chunks \d+\.\d\d/m);
  assert.match(text, /^ {2}writer thread: SQLite \d+\.\d\d/m);
  assert.equal(stages['blob files'], undefined);
});

test('without --stage-times the done event has no stages', async () => {
  const done = await doneEvent(false);
  assert.equal(done.stages, undefined);
});

// The writer thread's last message (its last checkpoint's time) came after its last answer: the
// crawl no longer held the thread then, and a process with nothing else open (the CLI) exited 13,
// its crawl unfinished, before printing the figures.
test('trawl crawl --stage-times, as its own process, finishes and prints the figures', async () => {
  const web = await site();
  const dir = tempDir();
  try {
    const r = await runCli(['crawl', `${web.origin}/p/1`, '--data', dir.dir, '--allow-private-network', '--delay-ms', '0', '--max-rps', '0', '--stage-times']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^time by stage, ms per request \(\d+ requests\):/m);
  } finally {
    await web.close();
    dir.cleanup();
  }
});
