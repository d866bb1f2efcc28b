// The phases of a sharded ranking run one after another in this process, over a scratch in memory:
// how a run small enough for one worker is ranked (the cloud's FinalizeRun alone), and the
// reference the spread steps are tested against.
import { ShardedRank, type RankChunk, type RankScratch } from './sharded-rank.js';

/** A scratch store in memory (ranking a run in one process, and tests). */
export function memoryScratch(): RankScratch & { bytes(): number } {
  const objects = new Map<string, Buffer>();
  return {
    async put(key, body) {
      objects.set(key, body);
    },
    async get(key) {
      return objects.get(key);
    },
    async list(prefix) {
      return [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
    },
    bytes: () => [...objects.values()].reduce((n, b) => n + b.length, 0),
  };
}

/** Every phase over every shard in this process, in order; returns the last round (0 for no pages). */
export async function rankAllShards(rank: ShardedRank, chunks: (shard: number) => AsyncIterable<RankChunk>): Promise<number> {
  const shards = Array.from({ length: rank.shards }, (_, s) => s);
  let total = 0;
  for (const s of shards) {
    let base = 0;
    let c = 0;
    for await (const chunk of chunks(s)) {
      await rank.collect(s, c++, base, chunk);
      base += chunk.pages.length;
    }
    await rank.collected(s, base);
    total += base;
  }
  for (const s of shards) await rank.gather(s);
  for (const s of shards) await rank.link(s);
  for (const s of shards) await rank.degrees(s);
  if (total === 0) return 0;
  await rank.merge(0);
  for (let round = 1; ; round++) {
    const deltas: number[] = [];
    for (const s of shards) deltas.push(await rank.round(round, s));
    if (ShardedRank.converged(round, deltas)) return round;
    await rank.merge(round);
  }
}
