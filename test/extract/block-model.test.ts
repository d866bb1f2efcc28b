// The learned block model: its trees are fitted deterministically and learn what their samples
// hold; it sees every candidate block of a page, inside the rules' choice and out, with every
// feature; a block it is sure of is dropped or added and the rules stand where it is unsure; and
// the model the build ships was fitted on the features the code computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../shared/extract/dom.js';
import { blockText, mainContentNodes } from '../../shared/extract/main-content.js';
import { BLOCK_FEATURES, type JudgedBlock } from '../../shared/extract/block-features.js';
import { activeBlockModel, contentProbability, withBlockModel, type BlockModel } from '../../shared/extract/block-model.js';
import { SHIPPED_BLOCK_MODEL } from '../../shared/extract/block-model-data.js';
import { fitTrees } from '../../bench/block-training.js';
import { prose } from '../../support/web/pages.js';

test('the trees are fitted deterministically and learn a rule the samples hold', () => {
  const linkDensity = BLOCK_FEATURES.indexOf('link-density');
  // Blocks that are mostly links are boilerplate (0), the rest content (1); every other feature is noise from a fixed sequence.
  let seed = 7;
  const noise = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const x: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < 400; i++) {
    const features = BLOCK_FEATURES.map(() => noise());
    features[linkDensity] = i % 4 === 0 ? 0.7 + 0.3 * noise() : 0.3 * noise();
    x.push(features);
    y.push(i % 4 === 0 ? 0 : 1);
  }
  const fitted = fitTrees(x, y);
  assert.deepEqual(fitTrees(x, y), fitted);
  const model: BlockModel = { features: [...BLOCK_FEATURES], ...fitted, dropBelow: 0.5, addAbove: 0.5, trainedOn: 'test' };
  const at = (ld: number) =>
    contentProbability(
      model,
      BLOCK_FEATURES.map((f: string) => (f === 'link-density' ? ld : 0.5)),
    );
  assert.ok(at(0.1) > 0.9 && at(0.9) < 0.1, `${at(0.1)} / ${at(0.9)}`);
});

const PAGE = `<html><body><nav><a href="/">Home</a> <a href="/a">Archive</a></nav>
<article><h1>The headline</h1><p>${prose(1, 70)}.</p><p>(Photo: Jane Doe)</p><p>${prose(2, 80)}.</p></article>
<section class="more"><p>${prose(3, 60)}.</p></section></body></html>`;

/** A model of one split: content when the feature is at or under `cut`, boilerplate over it (or the other way). */
function oneSplit(feature: string, cut: number, under: 'content' | 'boilerplate'): BlockModel {
  const v = under === 'content' ? 10 : -10;
  return {
    features: [...BLOCK_FEATURES],
    base: 0,
    trees: [[{ f: BLOCK_FEATURES.indexOf(feature as (typeof BLOCK_FEATURES)[number]), t: cut, l: 1, r: 2 }, { v }, { v: -v }]],
    dropBelow: 0.2,
    addAbove: 0.8,
    trainedOn: 'test',
  };
}

test('every candidate block, inside the choice and out, gets every feature; menus are never candidates', () => {
  let judged: JudgedBlock[] = [];
  withBlockModel(null, () => mainContentNodes(parseDocument(PAGE), { onJudged: (j) => (judged = j) }));
  const texts = judged.map((b) => `${b.inside ? 'in' : 'out'}:${blockText(b.el).slice(0, 12)}`);
  assert.ok(texts.includes('in:The headline'), texts.join(' | '));
  assert.ok(texts.includes('in:(Photo: Jane'));
  assert.ok(
    texts.some((t) => t.startsWith('out:') && t.includes(prose(3, 60).slice(0, 12))),
    texts.join(' | '),
  );
  assert.ok(!texts.some((t) => t.includes('Home')), 'a link list is not a candidate');
  for (const b of judged) assert.equal(b.features.length, BLOCK_FEATURES.length);
  const photo = judged.find((b) => blockText(b.el).startsWith('(Photo'))!;
  assert.equal(photo.features[BLOCK_FEATURES.indexOf('copyright-or-credit')], 1);
});

test('a block the model is sure of is dropped or added; where it is unsure the rules stand', () => {
  const rules = withBlockModel(null, () => blockText(mainContentNodes(parseDocument(PAGE)).nodes));
  assert.match(rules, /\(Photo: Jane Doe\)/);
  assert.doesNotMatch(rules, new RegExp(prose(3, 60).slice(0, 20)));
  // Sure that credits are boilerplate: the caption goes, the rest stays.
  const dropped = withBlockModel(oneSplit('copyright-or-credit', 0.5, 'content'), () => blockText(mainContentNodes(parseDocument(PAGE)).nodes));
  assert.doesNotMatch(dropped, /Photo: Jane Doe/);
  assert.match(dropped, new RegExp(prose(2, 80).slice(0, 20)));
  // Sure that long blocks are content: the section after the article joins, in document order.
  const added = withBlockModel(oneSplit('log-length', 0.5, 'boilerplate'), () => blockText(mainContentNodes(parseDocument(PAGE)).nodes));
  assert.ok(added.indexOf(prose(3, 60).slice(0, 20)) > added.indexOf(prose(2, 80).slice(0, 20)), added);
  // Unsure (every probability one half): the rules' text.
  const unsure: BlockModel = { ...oneSplit('log-length', 0.5, 'content'), trees: [] };
  assert.equal(
    withBlockModel(unsure, () => blockText(mainContentNodes(parseDocument(PAGE)).nodes)),
    rules,
  );
});

test('the shipped model was fitted on the features the code computes, and is in use', () => {
  assert.ok(SHIPPED_BLOCK_MODEL, 'block-model-data.ts holds a model: run npm run train:extract');
  assert.deepEqual(SHIPPED_BLOCK_MODEL.features, [...BLOCK_FEATURES], 'the features changed since the model was fitted: run npm run train:extract');
  assert.equal(activeBlockModel(), SHIPPED_BLOCK_MODEL);
  assert.ok(SHIPPED_BLOCK_MODEL.dropBelow < 0.5 && SHIPPED_BLOCK_MODEL.addAbove > 0.5);
});
