// The diff of a long page is computed once, off the HTTP thread: ten concurrent diffs of 5 MB
// pages leave /healthz answering at once (the diff ran on the request thread before: 17 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { openLocalForWriting } from '../../shared/store/local/open-local.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';

/** About `bytes` of markdown whose every line differs with `seed`: no common stretch to set aside. */
function longText(bytes: number, seed: number): string {
  const lines: string[] = [];
  for (let n = 0, i = 0; n < bytes; i++) {
    const line = `Line ${i} of version ${seed}: ${Array.from({ length: 12 }, (_, k) => `w${(i * 31 + k * 7 + seed * 13) % 9973}`).join(' ')}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n');
}

test('ten concurrent diffs of 5 MB pages answer while /healthz stays quick', { timeout: 120_000 }, async () => {
  const data = tempDir();
  await openLocalForWriting(data.dir, 'test').close();
  const ids = ['a', 'b', 'c', 'd'].map((c) => c.repeat(32));
  const db = new Database(join(data.dir, 'trawl.db'));
  const insert = db.prepare('INSERT INTO change_texts (run_id, url_id, before, after) VALUES (?, ?, ?, ?)');
  ids.forEach((id, i) => insert.run(2, id, longText(5_000_000, i), `${longText(5_000_000, i + 100)}\nThe closing line ${i}.`));
  db.close();

  const server = await startServer(resolveSettings(testFlags(data.dir), {}), { port: '0', readers: '0' }, {});
  try {
    const diffs = Array.from({ length: 10 }, (_, i) => fetch(new URL(`/changes/2/${ids[i % ids.length]}/diff`, server.url)));
    let pending = true;
    const all = Promise.all(diffs).finally(() => (pending = false));
    const health: number[] = [];
    while (pending && health.length < 2_000) {
      const t = performance.now();
      assert.equal((await fetch(new URL('/healthz', server.url))).status, 200);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    const answers = await all;
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 200);
      const { parts } = (await res.json()) as { parts: Array<{ op: string; text: string }> };
      assert.ok(
        parts.some((p) => p.op === '+' && p.text.includes(`closing line ${i % ids.length}`)) ||
          parts.some((p) => p.op === '…' && /more characters added/.test(p.text)),
        `diff ${i} shows what was added`,
      );
      assert.ok(JSON.stringify(parts).length < 1_000_000, 'a huge change is capped in the answer');
    }
    const slowest = Math.max(...health);
    console.log(`/healthz during the diffs: ${health.length} checks, slowest ${slowest.toFixed(1)} ms`);
    assert.ok(health.length >= 3, `the diffs took ${health.length} health checks`);
    assert.ok(slowest < 500, `/healthz took ${slowest.toFixed(0)} ms at worst during the diffs (${health.length} checks)`);
    const again = performance.now();
    assert.equal((await fetch(new URL(`/changes/2/${ids[0]}/diff`, server.url))).status, 200);
    assert.ok(performance.now() - again < 2_000, 'a diff asked for again is kept');
  } finally {
    await server.close();
    data.cleanup();
  }
});
