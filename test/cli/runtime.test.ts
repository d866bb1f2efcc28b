import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MALLOC_ENV, RUNTIME_ENV, tuneRuntime, V8_FLAGS, type RuntimeProcess } from '../../shared/cli/runtime.js';
import { tempDir } from '../../support/helpers.js';

function fakeProcess(env: NodeJS.ProcessEnv, execve: boolean) {
  const calls: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }> = [];
  const proc: RuntimeProcess = {
    execPath: '/usr/bin/node',
    execArgv: ['--import', 'tsx'],
    argv: ['/usr/bin/node', '/opt/trawl/bin/trawl.js', 'crawl', 'https://example.com/'],
    env,
    platform: 'linux',
    ...(execve
      ? { execve: ((file: string, args: string[], e: NodeJS.ProcessEnv) => calls.push({ file, args, env: e })) as unknown as RuntimeProcess['execve'] }
      : {}),
  };
  return { proc, calls };
}

test('a crawl starts itself again once, with the memory settings, the same arguments and the user’s own MALLOC_* winning', () => {
  const { proc, calls } = fakeProcess({ HOME: '/root', MALLOC_MMAP_THRESHOLD_: '65536' }, true);
  assert.equal(tuneRuntime(['crawl', 'https://example.com/'], proc), 're-exec');
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.file, '/usr/bin/node');
  assert.deepEqual(calls[0]!.args, ['/usr/bin/node', '--import', 'tsx', ...V8_FLAGS, '/opt/trawl/bin/trawl.js', 'crawl', 'https://example.com/']);
  assert.equal(calls[0]!.env.MALLOC_ARENA_MAX, MALLOC_ENV.MALLOC_ARENA_MAX);
  assert.equal(calls[0]!.env.MALLOC_MMAP_THRESHOLD_, '65536');
  assert.equal(calls[0]!.env.HOME, '/root');
  assert.equal(calls[0]!.env[RUNTIME_ENV], 'tuned');
  // The process started with the settings does not start again.
  assert.equal(tuneRuntime(['crawl'], fakeProcess({ [RUNTIME_ENV]: 'tuned' }, true).proc), 'tuned');
});

test('short commands and TRAWL_RUNTIME=default run as Node starts; without execve (Node 20) the V8 flags are set in place', () => {
  for (const args of [['status'], ['search', 'q'], ['--help'], []]) {
    const { proc, calls } = fakeProcess({}, true);
    assert.equal(tuneRuntime(args, proc), 'off', args.join(' '));
    assert.equal(calls.length, 0);
  }
  const optOut = fakeProcess({ [RUNTIME_ENV]: 'default' }, true);
  assert.equal(tuneRuntime(['crawl'], optOut.proc), 'off');
  assert.equal(optOut.calls.length, 0);
  assert.equal(tuneRuntime(['serve'], fakeProcess({}, false).proc), 'flags');
});

test('on this Node the settings reach the process that crawls: environment, V8 flags, the same pid', () => {
  const dir = tempDir('trawl-runtime-');
  try {
    const script = join(dir.dir, 'probe.mjs');
    const runtime = resolve('shared/cli/runtime.ts');
    writeFileSync(
      script,
      `const v8 = await import('node:v8');
const { tuneRuntime } = await import(${JSON.stringify(runtime)});
const did = tuneRuntime(process.argv.slice(2));
// A crawl's kind of garbage: many short-lived objects, some surviving a while.
let keep = [];
for (let i = 0; i < 300000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 100000) keep = keep.slice(50000); }
const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
console.log(JSON.stringify({ did, pid: process.pid, arenas: process.env.MALLOC_ARENA_MAX ?? null, marker: process.env.${RUNTIME_ENV} ?? null, execArgv: process.execArgv, youngMb: young.space_size / 1048576 }));`,
    );
    const probe = (extra: NodeJS.ProcessEnv) => {
      const env = { ...process.env, ...extra };
      if (!extra[RUNTIME_ENV]) delete env[RUNTIME_ENV];
      delete env.MALLOC_ARENA_MAX;
      const r = spawnSync(process.execPath, ['--import', 'tsx', script, 'crawl', 'https://example.com/'], { encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr);
      return {
        spawnedPid: r.pid,
        ...(JSON.parse(r.stdout.trim()) as { did: string; pid: number; arenas: string | null; marker: string | null; execArgv: string[]; youngMb: number }),
      };
    };
    const out = probe({});
    // As Node starts (opted out), the same garbage grows the young generation to 16–32 MiB.
    const untuned = probe({ [RUNTIME_ENV]: 'default' }).youngMb;
    assert.ok(untuned > 8, `opted out, new space ${untuned} MiB`);
    if (typeof (process as { execve?: unknown }).execve === 'function') {
      assert.equal(out.did, 'tuned', 'the process that printed is the one started again');
      assert.equal(out.pid, out.spawnedPid, 'replaced in place: no parent process left waiting');
      assert.equal(out.arenas, MALLOC_ENV.MALLOC_ARENA_MAX);
      assert.equal(out.marker, 'tuned');
      for (const flag of V8_FLAGS) assert.ok(out.execArgv.includes(flag), flag);
      // V8 took the semi-space flag: two 2 MiB semi-spaces, plus a page V8 may add under load (CI saw
      // 4.25 MiB), against the 16–32 MiB it grows to opted out.
      assert.ok(out.youngMb <= 8, `new space ${out.youngMb} MiB`);
    } else {
      assert.equal(out.did, 'flags');
      assert.equal(out.marker, null);
    }
  } finally {
    dir.cleanup();
  }
});
