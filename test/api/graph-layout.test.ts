// The page view's graph and run chart, the parts that need no browser: the boxes neighbours go
// in, the order labels are offered a place, the greedy fit that keeps them apart, and the time
// axis in the reader's locale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fittingLabels, labelPriority, LINKS_HERE, neighbourGroups, overlaps } from '../../shared/api/ui/graph-layout.js';
import { timeLabel, timeTicks } from '../../shared/api/ui/time-axis.js';

const node = (id: string, host = 'a.example', depth = 1) => ({ id, url: `https://${host}/${id}`, depth });

test("neighbours are boxed by the section of the centre's link to them, pages linking in apart, the rest loose", () => {
  const nodes = [node('c', 'a.example', 0), node('t'), node('n'), node('in'), node('far', 'a.example', 2)];
  const edges = [
    { from: 'c', to: 't', section: 'body' },
    { from: 'c', to: 'n', section: 'nav' },
    { from: 't', to: 'c', section: 'body' },
    { from: 'in', to: 'c', section: 'footer' },
    { from: 't', to: 'far', section: 'body' },
  ];
  const groups = neighbourGroups('c', nodes, edges);
  assert.deepEqual(Object.fromEntries(groups), { t: 'in the text', n: 'navigation', in: LINKS_HERE });
});

test('a neighbourhood without sections is boxed by host when it spans hosts, and not at all on one host', () => {
  const edges = [{ from: 'c', to: 'x' }];
  assert.deepEqual(Object.fromEntries(neighbourGroups('c', [node('c', 'a.example'), node('x', 'b.example')], edges)), {
    c: 'a.example',
    x: 'b.example',
  });
  assert.equal(neighbourGroups('c', [node('c'), node('x')], edges).size, 0);
});

test('labels are offered to the centre first, then by links, then by nearness', () => {
  const nodes = [node('a', 'h', 2), node('b', 'h', 1), node('c', 'h', 0), node('d', 'h', 1)];
  const edges = [
    { from: 'a', to: 'b' },
    { from: 'a', to: 'd' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'b' },
  ];
  assert.deepEqual(labelPriority('c', nodes, edges), ['c', 'b', 'd', 'a']);
});

test('a label that would cover one kept before it is left out; the first is always kept; at most max', () => {
  const box = (x: number, y: number) => ({ x1: x, y1: y, x2: x + 50, y2: y + 10 });
  assert.ok(overlaps(box(0, 0), box(40, 5)));
  assert.ok(!overlaps(box(0, 0), box(0, 20)));
  const kept = fittingLabels(
    [
      { id: 'centre', box: box(0, 0) },
      { id: 'covers-centre', box: box(30, 4) },
      { id: 'below', box: box(0, 20) },
      { id: 'right', box: box(60, 0) },
      { id: 'far', box: box(200, 200) },
    ],
    3,
  );
  assert.deepEqual([...kept], ['centre', 'below', 'right']);
});

test("the chart's time axis speaks the reader's locale: a 24-hour clock and day-month in German, the date where the day changes", () => {
  const start = Date.UTC(2026, 11, 6, 13, 58) / 1000;
  const splits = [start, start + 60, start + 6 * 3600, start + 11 * 3600];
  const de = timeTicks(splits, 60, 'de-DE', 'UTC');
  assert.equal(de[0], '13:58\n6. Dez.');
  assert.equal(de[1], '13:59');
  assert.equal(de[2], '19:58');
  assert.equal(de[3], '00:58\n7. Dez.');
  const us = timeTicks(splits, 60, 'en-US', 'UTC');
  assert.equal(us[0], '01:58 PM\nDec 6');
  assert.deepEqual(timeTicks([start], 30, 'de-DE', 'UTC'), ['13:58:00\n6. Dez.']);
  assert.deepEqual(timeTicks([start, start + 86_400], 86_400, 'de-DE', 'UTC'), ['6. Dez.', '7. Dez.']);
  assert.equal(timeLabel(start, 'de-DE', 'UTC'), '06.12.2026, 13:58:00');
});
