// The benches' children: each crawler in its own process, ending with one JSON line of its figures.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MALLOC_ENV, RUNTIME_ENV, V8_FLAGS } from '../shared/cli/runtime.js';

const DATA = join(tmpdir(), 'trawl-bench-data');

export interface ChildResult {
  elapsedMs: number;
  cpuMs: number;
  maxRssMb: number;
  /** Bytes the crawler wrote to the disk, in MiB (Linux; trawl's children). */
  diskWriteMb?: number;
  pagesStored: number;
  requests?: number;
  stages?: Record<string, number>;
  /** Pages rendered in Chromium, and the browser's peak memory (PSS of the processes below the crawler). */
  rendered?: number;
  browserPeakMb?: number;
  rssAt?: Array<{ pages: number; rssMb: number; peakRssMb: number; heapMb: number; externalMb: number; anonMb?: number; queued?: number }>;
}

/**
 * Runs a child (plain node for .mjs, tsx for .ts) and parses the JSON line it ends with. trawl's
 * children (bench/trawl-*.mjs) run under the memory settings the CLI starts a crawl with
 * (shared/cli/runtime.ts), so the benches measure what `trawl crawl` runs; `TRAWL_RUNTIME=default`
 * measures Node's own settings instead.
 */
export function runChild(script: string, args: string[]): Promise<ChildResult> {
  const tuned = /(^|\/)trawl-[^/]*\.mjs$/.test(script) && process.env[RUNTIME_ENV] !== 'default';
  const node = tuned ? [...V8_FLAGS] : [];
  const argv = script.endsWith('.ts') ? [...node, '--import', 'tsx', script, ...args] : [...node, script, ...args];
  const env = tuned ? { ...MALLOC_ENV, ...process.env } : process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'], env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${script} exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
}

/** trawl's child: the built crawl with these CLI flags. */
export function trawlArgs(seeds: string[], flags: Record<string, string | boolean>, checkpoints: number[] = []): string[] {
  return [JSON.stringify({ seeds, data: DATA, flags, checkpoints })];
}
