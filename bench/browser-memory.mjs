// The memory of the processes below this one (a crawler's browser), for the benches' children:
// the proportional set size (PSS: shared pages split between the processes that map them) of every
// descendant, sampled every 250 ms; `peakMb()` is the largest sum seen. Linux only (reads /proc).
import { readdirSync, readFileSync } from 'node:fs';

function descendants() {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...parent.keys()].filter(below);
}

function pssMb(pid) {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Starts sampling; `stop()` ends it and returns the peak in MiB (0 off Linux). */
export function sampleDescendants() {
  let peak = 0;
  const timer =
    process.platform === 'linux'
      ? setInterval(
          () =>
            (peak = Math.max(
              peak,
              descendants().reduce((sum, pid) => sum + pssMb(pid), 0),
            )),
          250,
        )
      : undefined;
  timer?.unref();
  return {
    stop() {
      if (timer) clearInterval(timer);
      return peak;
    },
  };
}
