import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFieldWeights, contextualScores, DEFAULT_FIELD_WEIGHTS, termsOf } from '../../shared/scoring/contextual.js';

const QUERY = 'fire protection sprinkler inspection testing alarm suppression';

test('BM25 over title, description, anchor and URL ranks the relevant target first, each field normalised to 0–1', () => {
  const candidates = [
    {
      title: 'Fire Sprinkler Inspection and Testing',
      description: 'NFPA 25 sprinkler inspection.',
      anchor: 'Sprinkler inspection',
      url: 'https://a.test/services/sprinkler-inspection',
    },
    { title: 'About Acme', description: 'Family-owned since 1985.', anchor: 'About us', url: 'https://a.test/about-us' },
    { title: 'Careers', description: 'Join the team.', anchor: 'Careers', url: 'https://a.test/careers' },
    { anchor: 'Fire alarm testing', url: 'https://a.test/fire-alarm-testing' },
  ];
  const scores = contextualScores(QUERY, candidates);
  assert.ok(scores[0]!.score > scores[3]!.score && scores[3]!.score > scores[1]!.score, JSON.stringify(scores.map((s) => s.score)));
  assert.equal(scores[2]!.score, 0);
  assert.equal(scores[0]!.fields.title, 1, 'the best title scores 1');
  for (const s of scores) for (const v of [s.score, ...Object.values(s.fields)]) assert.ok(v >= 0 && v <= 1);
  assert.deepEqual(scores[3]!.matched.sort(), termsOf('fire alarm testing').sort(), 'without a preview the anchor and URL still count');
  assert.deepEqual(
    contextualScores('', candidates).map((s) => s.score),
    [0, 0, 0, 0],
  );
  // The weights decide how much a field counts: all on the URL, only URL words matter.
  const urlOnly = contextualScores(QUERY, candidates, { title: 0, description: 0, anchor: 0, url: 1 });
  assert.equal(urlOnly[1]!.score, 0);
  assert.ok(urlOnly[3]!.score > 0);
});

test('field weights must cover the four fields and sum to 1', () => {
  assert.equal(checkFieldWeights(DEFAULT_FIELD_WEIGHTS), undefined);
  assert.match(checkFieldWeights({ title: 0.5, description: 0.5, anchor: 0.5, url: 0 })!, /sum to 1\.500; they must sum to 1/);
  assert.match(checkFieldWeights({ title: -1, description: 1, anchor: 1, url: 0 })!, /weight of title/);
});
