// The learned tag ranker: it ranks the rules' candidates by its probability, keeps as many as clear
// its threshold (never fewer than the minimum a tag set holds), skips a phrase whose words a
// stronger tag holds, keeps function words out; and the shipped ranker was fitted on the features
// the code computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activeTagModel, keyphraseTags, tagCandidates, TAG_FEATURES, type TagModel } from '../../shared/enrich/local-tags.js';
import { TAG_LIMITS } from '../../shared/enrich/tags.js';
import { SHIPPED_TAG_MODEL } from '../../shared/enrich/tag-model-data.js';

const TEXT =
  'Harbour dredging is delayed again. The harbour authority said dredging of the channel would start in May, ' +
  'but the dredging contract is not signed. Ferry operators warn that the shallow channel limits ferry sailings at low tide. ' +
  'The harbour authority expects the dredging contract to be signed next month, and the channel to reopen to large ferries by autumn.';

/** A ranker of one split: sure of candidates at or over `cut` of one feature, sure against the rest. */
function oneSplit(feature: (typeof TAG_FEATURES)[number], cut: number, threshold: number): TagModel {
  return {
    features: [...TAG_FEATURES],
    base: 0,
    trees: [[{ f: TAG_FEATURES.indexOf(feature), t: cut, l: 1, r: 2 }, { v: -6 }, { v: 6 }]],
    threshold,
    trainedOn: 'test',
  };
}

test('the ranker orders the candidates and stops at its threshold, never under the minimum', () => {
  const candidates = tagCandidates('Harbour dredging delayed', TEXT, 'en');
  assert.ok(candidates.length > 5);
  for (const c of candidates) assert.equal(c.features.length, TAG_FEATURES.length);
  // Sure only of phrases of two words: those come first, and the rest stop at the minimum.
  const pairs = keyphraseTags('Harbour dredging delayed', TEXT, 'en', undefined, { model: oneSplit('size-2', 0.5, 0.5) });
  const twoWord = pairs.filter((t) => t.split('-').length === 2);
  assert.ok(twoWord.length >= 1 && pairs.slice(0, twoWord.length).every((t) => t.split('-').length === 2), pairs.join(' '));
  assert.ok(pairs.length >= TAG_LIMITS.min);
  // A threshold nothing clears: the minimum, no more.
  assert.equal(keyphraseTags('Harbour dredging delayed', TEXT, 'en', undefined, { model: oneSplit('size-3', 0.5, 0.999) }).length, TAG_LIMITS.min);
  // No model: the rules.
  assert.deepEqual(
    keyphraseTags('Harbour dredging delayed', TEXT, 'en', undefined, { model: null }),
    keyphraseTags('Harbour dredging delayed', TEXT, 'en', undefined, { model: null }),
  );
});

test('function words are never tags, whoever ranks', () => {
  for (const model of [null, activeTagModel()]) {
    const tags = keyphraseTags('Does it matter amid the storm', `${TEXT} It does matter, amid everything, whether it does or not.`, 'en', undefined, { model });
    assert.ok(!tags.some((t) => ['#does', '#amid', '#whether', '#not'].includes(t)), tags.join(' '));
  }
});

test('the shipped ranker was fitted on the features the code computes, and is in use', () => {
  assert.ok(SHIPPED_TAG_MODEL, 'tag-model-data.ts holds a model: run npm run train:tags');
  assert.deepEqual(SHIPPED_TAG_MODEL.features, [...TAG_FEATURES], 'the features changed since the ranker was fitted: run npm run train:tags');
  assert.equal(activeTagModel(), SHIPPED_TAG_MODEL);
});
