// The CLI's exit code comes from its command's promise; a command left unsettled when Node has
// nothing more to wait on (a bug) ends with an error and exit code 1, not silently with 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const run = (body: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { exitWhenDone } from './shared/cli/exit.ts';\n${body}`], {
    encoding: 'utf8',
  });

test('a command whose promise nothing settles exits 1 and says so', () => {
  const r = run(`process.stdout.write('half the output\\n'); exitWhenDone(new Promise(() => {}));`);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, 'half the output\n');
  assert.match(r.stderr, /^trawl: internal error: the command stopped before it finished/);
  assert.match(r.stderr, /--resume/);
});

test('a command that finishes exits with its code, and one that throws exits 1 with the error', () => {
  const done = run(`exitWhenDone(new Promise((resolve) => setTimeout(() => resolve(2), 20)));`);
  assert.equal(done.status, 2);
  assert.equal(done.stderr, '');
  const failed = run(`exitWhenDone(Promise.reject(new Error('disk on fire')));`);
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /^trawl: internal error: Error: disk on fire/);
});
