import { CompactGraph } from './compact-graph.js';

/**
 * PageRank by power iteration (Brin & Page 1998): damping 0.85, dangling pages spread their
 * rank evenly, stops when the L1 change falls below 1e-6 or after 100 rounds. Ranks sum to 1.
 *
 * @example pageRank(['a', 'b'], [['a', 'b']]).get('b') // > rank of 'a'
 */
export function pageRank(nodes: string[], edges: Array<[string, string]>, damping = 0.85, maxRounds = 100, tolerance = 1e-6): Map<string, number> {
  // One power iteration, the compact graph's: links between unknown nodes are dropped, repeated links count each time.
  const graph = new CompactGraph();
  for (const id of nodes) graph.node(id);
  for (const [from, to] of edges) if (graph.has(from) && graph.has(to)) graph.link(graph.node(from), graph.node(to));
  const rank = graph.pageRank(damping, maxRounds, tolerance);
  return new Map(graph.ids.map((id, i) => [id, rank[i]!]));
}
