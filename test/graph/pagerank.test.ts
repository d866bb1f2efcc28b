import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactGraph } from '../../shared/graph/compact-graph.js';

/** The compact graph's ranks by id: links between unknown nodes dropped, a repeated link counted once. */
function pageRank(ids: string[], links: Array<[string, string]>): Map<string, number> {
  const graph = new CompactGraph();
  for (const id of ids) graph.node(id);
  for (const [f, t] of links) if (graph.has(f) && graph.has(t)) graph.link(graph.node(f), graph.node(t));
  graph.dedupe();
  const rank = graph.pageRank();
  return new Map(ids.map((id, i) => [id, rank[i]!]));
}

/** The textbook power iteration, over maps (the reference the compact graph is checked against). */
function referenceRank(ids: string[], links: Array<[string, string]>, damping = 0.85): Map<string, number> {
  const out = new Map(ids.map((id) => [id, new Set<string>()]));
  for (const [f, t] of links) if (f !== t && out.has(t)) out.get(f)?.add(t);
  let rank = new Map(ids.map((id) => [id, 1 / ids.length]));
  for (let round = 0; round < 200; round++) {
    const dangling = ids.filter((id) => out.get(id)!.size === 0).reduce((sum, id) => sum + rank.get(id)!, 0);
    const next = new Map(ids.map((id) => [id, (1 - damping) / ids.length + (damping * dangling) / ids.length]));
    for (const [f, targets] of out) for (const t of targets) next.set(t, next.get(t)! + (damping * rank.get(f)!) / targets.size);
    rank = next;
  }
  return rank;
}

test('ranks the page everyone links to first, and ranks sum to one', () => {
  const ranks = pageRank(
    ['hub', 'a', 'b', 'c'],
    [
      ['a', 'hub'],
      ['b', 'hub'],
      ['c', 'hub'],
      ['hub', 'a'],
    ],
  );
  const sum = [...ranks.values()].reduce((x, y) => x + y, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9);
  assert.ok(ranks.get('hub')! > ranks.get('a')!);
  assert.ok(ranks.get('a')! > ranks.get('b')!, 'a is linked by the hub');
  assert.ok(Math.abs(ranks.get('b')! - ranks.get('c')!) < 1e-12, 'symmetric pages rank alike');
});

test('spreads dangling pages evenly and ignores self-links and unknown nodes', () => {
  const ranks = pageRank(
    ['x', 'y'],
    [
      ['x', 'x'],
      ['x', 'ghost'],
    ],
  );
  assert.ok(Math.abs(ranks.get('x')! - 0.5) < 1e-9 && Math.abs(ranks.get('y')! - 0.5) < 1e-9);
  assert.equal(pageRank([], []).size, 0);
});

test('the compact graph ranks as the textbook iteration does, counts a repeated link once and drops self-links', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const links: Array<[string, string]> = [
    ['a', 'b'],
    ['b', 'c'],
    ['c', 'a'],
    ['a', 'c'],
    ['d', 'c'],
    ['d', 'c'],
    ['e', 'e'],
  ];
  const graph = new CompactGraph();
  for (const id of ids) graph.node(id);
  for (const [f, t] of links) graph.link(graph.node(f), graph.node(t));
  graph.dedupe();
  assert.equal(graph.edgeCount, 5);
  const compact = graph.pageRank();
  const reference = referenceRank(ids, links);
  for (const [i, id] of ids.entries()) assert.ok(Math.abs(compact[i]! - reference.get(id)!) < 1e-6, id);
});
