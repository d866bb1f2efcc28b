// Crawled text printed to a terminal cannot drive it: control characters are escaped in lines for
// people, and JSON lines carry them as \u escapes (the same value to a JSON reader). Dates that
// are not days of the calendar are refused, not rolled over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { printable, printableJson } from '../../shared/cli/terminal-text.js';
import { jsonLine } from '../../shared/cli/render.js';
import { realCalendarDate } from '../../shared/util/calendar-date.js';
import { tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';
import { openLocalForWriting } from '../../shared/store/local/open-local.js';

// eslint-disable-next-line no-control-regex -- the characters a terminal acts on
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/;
// eslint-disable-next-line no-control-regex -- any C0 control, which JSON escapes itself
const C0 = /[\x00-\x1f\x7f-\x9f\u202a-\u202e]/;
const hostile = 'Title\x1b]0;owned\x07 \x1b[2J\x9b31m \u202eevil\r';

test('control characters of crawled text are escaped for the terminal; JSON lines keep the value', () => {
  const shown = printable(hostile);
  assert.doesNotMatch(shown, CONTROLS);
  assert.equal(shown, 'Title\\x1b]0;owned\\x07 \\x1b[2J\\x9b31m \\u202eevil\\x0d');
  assert.equal(printable('tab\tand\nnewline'), 'tab\tand\nnewline');
  const line = jsonLine({ title: hostile });
  assert.doesNotMatch(line, C0);
  assert.equal((JSON.parse(line) as { title: string }).title, hostile);
  assert.equal(printableJson(JSON.stringify({ t: '\x85' })), '{"t":"\\u0085"}');
});

test('dates that are not days of the calendar are refused', async () => {
  for (const d of ['2024-02-29', '2026-12-31', '2026', '2026-07', '2026-01-31T10:00Z']) assert.equal(realCalendarDate(d), true, d);
  for (const d of ['2026-02-29', '2026-02-31', '2026-13-01', '2026-00-10', '2026-04-31', 'soon']) assert.equal(realCalendarDate(d), false, d);
  const data = tempDir();
  try {
    await openLocalForWriting(data.dir, 'test').close();
    for (const args of [
      ['search', 'bread', '--since', '2026-02-31'],
      ['changes', '--since', '2026-02-30'],
    ]) {
      const r = await runCli([...args, '--data', data.dir], 30_000);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /no such day in the calendar/, r.stderr);
    }
  } finally {
    data.cleanup();
  }
});

test('trawl mcp over stdio says so on stderr and exits 1 when a message is over 10 MB', { timeout: 60_000 }, async () => {
  const data = tempDir();
  const child = spawn(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', 'mcp', '--data', data.dir], { stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 11; i++) child.stdin.write(chunk);
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1, stderr);
    assert.match(stderr, /over 10 MB/);
  } finally {
    child.kill();
    data.cleanup();
  }
});
