import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of processes whose command line contains `needle`, and of zombie browser processes this
 * process has not reaped (Linux /proc; a zombie's command line is empty).
 */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ours = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === process.pid;
      if ((state !== 'Z' && cmdline.includes(needle)) || (state === 'Z' && ours && /\(chrom/.test(readFileSync(`/proc/${name}/stat`, 'utf8'))))
        pids.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

export async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}
