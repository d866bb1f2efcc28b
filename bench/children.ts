// The benches' children: each crawler in its own process, ending with one JSON line of its figures.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DATA = join(tmpdir(), 'trawl-bench-data');

export interface ChildResult {
  elapsedMs: number;
  cpuMs: number;
  maxRssMb: number;
  pagesStored: number;
  requests?: number;
  stages?: Record<string, number>;
  /** Pages rendered in Chromium, and the browser's peak memory (PSS of the processes below the crawler). */
  rendered?: number;
  browserPeakMb?: number;
  rssAt?: Array<{ pages: number; rssMb: number; peakRssMb: number; heapMb: number; externalMb: number; anonMb?: number; queued?: number }>;
}

/** Runs a child (plain node for .mjs, tsx for .ts) and parses the JSON line it ends with. */
export function runChild(script: string, args: string[]): Promise<ChildResult> {
  const argv = script.endsWith('.ts') ? ['--import', 'tsx', script, ...args] : [script, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
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
