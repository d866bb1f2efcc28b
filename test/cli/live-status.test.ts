// The progress line stays on the terminal's last row: a log line on stderr or a printed line on
// stdout clears it first and has it drawn again after, so no line is glued to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveStatus } from '../../shared/cli/live-status.js';

/** A terminal both streams write to, as the bytes arrive. */
function terminal() {
  let screen = '';
  const stream = () => ({
    write: (chunk: string | Uint8Array) => {
      screen += String(chunk);
      return true;
    },
  });
  // The rows a terminal shows: `\r\x1b[2K` clears the current row.
  const rows = () =>
    screen
      .split('\n')
      .map((row) => row.split('\r\x1b[2K').at(-1)!)
      .filter((row, i, all) => row !== '' || i < all.length - 1);
  return { stderr: stream(), stdout: stream(), rows };
}

test('a log line or a printed line never lands on the progress line', () => {
  const t = terminal();
  const live = liveStatus(t.stderr, [t.stdout]);
  live.set('pages 10 (5.0/s)  queued 40');
  t.stderr.write('12:00:01 WARN  trawl.fetch: host parked host=a.test\n');
  t.stdout.write('cannot reach b.test: the connection was refused\n');
  live.set('pages 20 (6.0/s)  queued 30');
  assert.deepEqual(t.rows(), [
    '12:00:01 WARN  trawl.fetch: host parked host=a.test',
    'cannot reach b.test: the connection was refused',
    'pages 20 (6.0/s)  queued 30',
  ]);
  live.set('');
  live.restore();
  t.stdout.write('run 1 finished\n');
  assert.deepEqual(t.rows().slice(-1), ['run 1 finished']);
});
