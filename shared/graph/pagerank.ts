/**
 * PageRank by power iteration (Brin & Page 1998): damping 0.85, dangling pages spread their
 * rank evenly, stops when the L1 change falls below 1e-6 or after 100 rounds. Ranks sum to 1.
 *
 * @example pageRank(['a', 'b'], [['a', 'b']]).get('b') // > rank of 'a'
 */
export function pageRank(nodes: string[], edges: Array<[string, string]>, damping = 0.85, maxRounds = 100, tolerance = 1e-6): Map<string, number> {
  const n = nodes.length;
  const index = new Map(nodes.map((id, i) => [id, i]));
  const out = new Array<number[]>(n).fill([]).map(() => [] as number[]);
  for (const [from, to] of edges) {
    const f = index.get(from);
    const t = index.get(to);
    if (f !== undefined && t !== undefined && f !== t) out[f]!.push(t);
  }
  let rank = new Float64Array(n).fill(n ? 1 / n : 0);
  for (let round = 0; round < maxRounds && n > 0; round++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const targets = out[i]!;
      if (targets.length === 0) dangling += rank[i]!;
      else for (const t of targets) next[t]! += rank[i]! / targets.length;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) {
      next[i] = (1 - damping) / n + damping * (next[i]! + dangling / n);
      delta += Math.abs(next[i]! - rank[i]!);
    }
    rank = next;
    if (delta < tolerance) break;
  }
  return new Map(nodes.map((id, i) => [id, rank[i]!]));
}
