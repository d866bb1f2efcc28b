// bench:extract's block-classifier experiment fits its trees deterministically (the same
// corpus gives the same cross-validated figure every run) and learns what its samples hold, and
// its features are computed on the blocks the extraction hands out once the rules are done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../shared/extract/dom.js';
import { blockText, mainContentNodes, type ContentBlocks } from '../../shared/extract/main-content.js';
import { BLOCK_FEATURES, boilerplateProbability, judgeBlocks, trainBlockModel, type BlockSample } from '../../bench/block-classifier.js';
import { prose } from '../web/pages.js';

test('training is deterministic and learns a rule the samples hold', () => {
  const linkDensity = BLOCK_FEATURES.indexOf('link-density');
  // Blocks that are mostly links are boilerplate, the rest content; every other feature is noise from a fixed sequence.
  let seed = 7;
  const noise = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const samples: BlockSample[] = Array.from({ length: 400 }, (_, i) => {
    const features = BLOCK_FEATURES.map(() => noise());
    features[linkDensity] = i % 4 === 0 ? 0.7 + 0.3 * noise() : 0.3 * noise();
    return { features, boilerplate: i % 4 === 0 ? 1 : 0 };
  });
  const a = trainBlockModel(samples, 0.5, 'test');
  assert.deepEqual(trainBlockModel(samples, 0.5, 'test'), a);
  const at = (ld: number) =>
    boilerplateProbability(
      a,
      BLOCK_FEATURES.map((f: string) => (f === 'link-density' ? ld : 0.5)),
    );
  assert.ok(at(0.9) > 0.9 && at(0.1) < 0.1, `${at(0.9)} / ${at(0.1)}`);
});

test("the content pass hands out the content's blocks once the rules are done, and each gets every feature", () => {
  let seen: ContentBlocks | undefined;
  const html = `<html><body><nav><a href="/">Home</a></nav><article><h1>The headline</h1><p>${prose(1, 70)}.</p><p>(Photo: Jane Doe)</p><p>${prose(2, 80)}.</p></article></body></html>`;
  const main = mainContentNodes(parseDocument(html), { onBlocks: (c) => (seen = c) });
  const x = { text: blockText(main.nodes) };
  assert.ok(seen);
  const judged = judgeBlocks(seen.model, seen.blocks, seen.nodes);
  assert.deepEqual(
    judged.map((b) => b.text.slice(0, 12)),
    ['The headline', `${prose(1, 70)}`.slice(0, 12), '(Photo: Jane', `${prose(2, 80)}`.slice(0, 12)],
  );
  for (const b of judged) assert.equal(b.features.length, BLOCK_FEATURES.length);
  assert.equal(judged[2]!.features[BLOCK_FEATURES.indexOf('copyright-or-credit')], 1);
  assert.ok(x.text.includes('(Photo: Jane Doe)'), 'the rules keep it: the classifier is not shipped');
});
