import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { GroupCommit } from '../../shared/pipeline/embedded/group-commit.js';
import type { FetchCommit } from '../../shared/ports/index.js';
import { tempDir } from '../../support/helpers.js';
import { fetchRecord, row } from '../store-records.js';

/** A real SQLite store, with a group (one transaction) that fails whenever it holds the commit of `bad`. */
async function withStore(fn: (store: SqliteCrawlStore, runId: number, groups: string[][]) => Promise<void>) {
  const { dir, cleanup } = tempDir();
  const sqlite = new SqliteCrawlStore(dir);
  try {
    const run = await sqlite.createRun([], {}, 1);
    const groups: string[][] = [];
    const store = Object.create(sqlite) as SqliteCrawlStore;
    store.commitFetches = async (commits: FetchCommit[]) => {
      groups.push(commits.map((c) => c.urlId));
      if (commits.some((c) => c.urlId === 'bad') && commits.length > 1) throw new Error('the group failed');
      return sqlite.commitFetches(commits);
    };
    store.commitFetch = async (c: FetchCommit) => {
      if (c.urlId === 'bad') throw new Error('bad commit');
      return sqlite.commitFetch(c);
    };
    await fn(store, run.id, groups);
  } finally {
    await sqlite.close();
    cleanup();
  }
}

const stateOf = async (store: SqliteCrawlStore, runId: number, id: string) => (await store.seenUrls(runId)).find((u) => u.urlId === id)?.state;

const commitOf = (runId: number, id: string, found: string[] = []): FetchCommit => ({
  runId,
  urlId: id,
  state: 'done',
  attempts: 1,
  fetch: fetchRecord({ runId, urlId: id, fetchedAt: 1 }),
  discovered: found.map((f) => row(runId, f)),
});

test('commits arriving together are stored as one group, and each caller gets the URLs its own commit inserted', async () => {
  await withStore(async (store, runId, groups) => {
    await store.addUrls(['a', 'b', 'c'].map((id) => row(runId, id)));
    const group = new GroupCommit(store, { maxBatch: 3, maxDelayMs: 60_000 });
    const answers = await Promise.all([commitOf(runId, 'a', ['x', 'y']), commitOf(runId, 'b', ['y', 'z']), commitOf(runId, 'c')].map((c) => group.commit(c)));
    // Full at three: stored at once, not after the delay. `y` went to the first commit that named it.
    assert.deepEqual(groups, [['a', 'b', 'c']]);
    assert.deepEqual(answers, [['x', 'y'], ['z'], []]);
    assert.equal(await stateOf(store, runId, 'b'), 'done');
    assert.deepEqual([group.groups, group.commits], [1, 3]);
  });
});

test('a group waits up to its delay for more commits; flush stores what waits; 0 ms stores each at once', async () => {
  await withStore(async (store, runId, groups) => {
    await store.addUrls(['a', 'b', 'c'].map((id) => row(runId, id)));
    const grouped = new GroupCommit(store, { maxBatch: 10, maxDelayMs: 20 });
    const first = grouped.commit(commitOf(runId, 'a'));
    const second = grouped.commit(commitOf(runId, 'b'));
    assert.deepEqual(groups, [], 'nothing stored before the delay');
    await Promise.all([first, second]);
    assert.deepEqual(groups, [['a', 'b']]);
    const waiting = grouped.commit(commitOf(runId, 'c', ['d']));
    await grouped.flush();
    assert.deepEqual(await waiting, ['d']);
    const single = new GroupCommit(store, { maxBatch: 10, maxDelayMs: 0 });
    await single.commit(commitOf(runId, 'd'));
    assert.deepEqual(groups.at(-1), ['d']);
  });
});

test('a group that fails is retried commit by commit: only the bad one fails, the others are stored', async () => {
  await withStore(async (store, runId) => {
    await store.addUrls(['a', 'bad', 'c'].map((id) => row(runId, id)));
    const group = new GroupCommit(store, { maxBatch: 3, maxDelayMs: 60_000 });
    const results = await Promise.allSettled([commitOf(runId, 'a', ['x']), commitOf(runId, 'bad'), commitOf(runId, 'c')].map((c) => group.commit(c)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual((results[0] as PromiseFulfilledResult<string[]>).value, ['x']);
    assert.match(String((results[1] as PromiseRejectedResult).reason), /bad commit/);
    assert.equal(await stateOf(store, runId, 'a'), 'done');
    assert.equal(await stateOf(store, runId, 'bad'), 'queued');
    assert.equal(await stateOf(store, runId, 'c'), 'done');
  });
});
