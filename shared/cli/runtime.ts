import v8 from 'node:v8';

/**
 * glibc's malloc settings for a long crawl, read once when a process starts (so the CLI starts
 * itself again with them). One arena for every thread, not one per thread that allocates (8 per
 * core): the crawl's threads (main, SQLite writer, extraction and PDF workers, libuv's pool) each
 * kept a partly used 64 MiB arena. A fixed mmap threshold: glibc raises its own to the size of the
 * largest block freed (a capped 5 MiB page), after which every large body is carved from the heap
 * and the heap, fragmented, is never given back. bench:crawl's web, peak RSS: 382–414 MiB as Node
 * starts, 226–239 MiB with these and the V8 flags below (2026-11-27, docs/benchmarks.md).
 */
export const MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * V8's heap sizing for the same: an old generation that grows 1.25× past its live data before a
 * full collection (V8 lets it reach ~4× on a crawl, the main thread's 120 MB for ~23 MB live), and
 * 2 MiB semi-spaces (a young generation of ≤ 6 MiB instead of up to 48).
 */
export const V8_FLAGS: readonly string[] = ['--heap-growing-percent=25', '--max-semi-space-size=2'];

/** Commands that run long enough, over enough pages, for the settings to matter. */
export const LONG_RUNNING: ReadonlySet<string> = new Set(['crawl', 'replay', 'serve', 'enrich', 'index']);

/** Set in the process started with the settings (not started again), and `default` to opt out of them. */
export const RUNTIME_ENV = 'TRAWL_RUNTIME';

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

export interface RuntimeProcess {
  execPath: string;
  execArgv: string[];
  argv: string[];
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Node ≥ 22.15 (POSIX): replaces the process, same pid, nothing left behind. */
  execve?: Execve;
}

/**
 * What the CLI does before anything else for a long-running command: on Linux with
 * `process.execve` it replaces itself with the same command under MALLOC_ENV (the user's own
 * MALLOC_* variables win) and V8_FLAGS, once; elsewhere (Node 20, which lacks execve, or another
 * OS) it sets the V8 flags in place, which the heaps take from their next collection on. Returns
 * what it did; `re-exec` is only returned by a test's execve (the real one does not return).
 */
export function tuneRuntime(args: string[], proc: RuntimeProcess = process as RuntimeProcess): 'off' | 'tuned' | 're-exec' | 'flags' {
  if (!LONG_RUNNING.has(args[0] ?? '') || proc.env[RUNTIME_ENV] === 'default') return 'off';
  if (proc.env[RUNTIME_ENV] === 'tuned') return 'tuned';
  if (proc.platform === 'linux' && typeof proc.execve === 'function') {
    const env = { ...MALLOC_ENV, ...proc.env, [RUNTIME_ENV]: 'tuned' };
    proc.execve(proc.execPath, [proc.execPath, ...proc.execArgv, ...V8_FLAGS, ...proc.argv.slice(1)], env);
    return 're-exec';
  }
  v8.setFlagsFromString(V8_FLAGS.join(' '));
  return 'flags';
}
