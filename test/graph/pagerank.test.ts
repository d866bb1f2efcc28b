import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageRank } from '../../shared/graph/pagerank.js';
import { CompactGraph } from '../../shared/graph/compact-graph.js';

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

test('the compact graph ranks as pageRank does, counts a repeated link once and drops self-links', () => {
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
  const reference = pageRank(ids, links);
  for (const [i, id] of ids.entries()) assert.ok(Math.abs(compact[i]! - reference.get(id)!) < 1e-12, id);
});
