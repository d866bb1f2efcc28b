// Highlights are the page's own words: sentences that answer the query (adjacent ones joined),
// a code block whole and fenced, table rows under their header, each with its span in the markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { highlightsOf } from '../../shared/search/highlights.js';

const PAGE = [
  '# Ferry guide',
  '',
  'The harbour has three piers. Ferries to the island leave from pier two every hour. The crossing takes forty minutes. Tickets are sold at the kiosk.',
  '',
  'The café on pier one opens at seven.',
  '',
  '```sh',
  'curl https://ferry.example/timetable?route=island',
  '```',
  '',
  '| Route | Departure | Ferry |',
  '| --- | --- | --- |',
  '| Island | 09:00 | Osprey |',
  '| Mainland | 10:00 | Heron |',
  '| Island | 11:00 | Osprey |',
  '',
  '- Bicycles travel free on every ferry to the island.',
].join('\n');

test('sentences that answer the query, adjacent ones joined, with their spans', () => {
  const h = highlightsOf(PAGE, 'do ferries leave every hour, and how many minutes is the crossing', { maxUnits: 3 });
  assert.ok(h.passages.length >= 1);
  for (const p of h.passages) assert.equal(PAGE.slice(p.start, p.end), p.text, 'a span points at the page’s own words');
  assert.match(h.text, /Ferries to the island leave from pier two every hour\. The crossing takes forty minutes\./);
  assert.doesNotMatch(h.text, /café/);
});

test('a code block is kept whole and fenced; table rows come under their header', () => {
  const code = highlightsOf(PAGE, 'timetable curl', { maxUnits: 2 });
  assert.match(code.text, /^```sh\ncurl https:\/\/ferry\.example\/timetable\?route=island\n```$/m);
  const rows = highlightsOf(PAGE, 'Osprey departures');
  assert.match(rows.text, /\| Route \| Departure \| Ferry \|\n\| --- \| --- \| --- \|\n\| Island \| 09:00 \| Osprey \|\n\| Island \| 11:00 \| Osprey \|/);
  assert.doesNotMatch(rows.text, /Heron/);
});

test('nothing when the page does not hold the query’s terms, or the query has none', () => {
  assert.deepEqual(highlightsOf(PAGE, 'volcano eruption'), { text: '', passages: [] });
  assert.deepEqual(highlightsOf(PAGE, 'the of and'), { text: '', passages: [] });
});

test('fast: a long page in well under 50 ms', () => {
  const long = Array.from(
    { length: 400 },
    (_, i) => `Paragraph ${i} tells of the harbour and its ferries, of pier ${i % 7} and the tides. It goes on about boats.`,
  ).join('\n\n');
  highlightsOf(long, 'warm up');
  const t = performance.now();
  const h = highlightsOf(long, 'pier tides ferries');
  assert.ok(h.passages.length > 0);
  // A bound far above the work (a few ms here), so a loaded machine does not fail it; bench:api measures.
  assert.ok(performance.now() - t < 500);
});
