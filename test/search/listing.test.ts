// Listings in search: how much a page reads as one, and how the fused list ranks them; the fusion
// keeps a page that one list found strongly above pages both lists held at middling ranks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listingShare } from '../../shared/search/listing.js';
import { fuseScores, hybridSearch, LISTING_RULES, rankListings } from '../../shared/search/hybrid.js';

const tagPage = [
  '# Posts tagged gardening',
  '## [Three evergreens for your plot](https://a.test/evergreens)',
  'Eucalyptus and holly keep their leaves through the winter…',
  '[Read more](https://a.test/evergreens)',
  '## [Gardening in a warming world](https://a.test/warming)',
  'Warmer winters change what grows where…',
  '[Read more](https://a.test/warming)',
  '- [Older posts](https://a.test/tag/gardening/page/2)',
].join('\n\n');

const article = [
  '# Three evergreens for your plot',
  'Eucalyptus have lovely, textured silvery foliage, as [the society](https://rhs.test) notes.',
  'The problem with these large trees is that they rapidly grow tall.',
  '## Coppicing',
  'Cut the stems so that new growth appears at ground level, creating a bush.',
  '- Holly makes a good screen year round.',
  '- [Box](https://a.test/box) clips well.',
].join('\n\n');

test('a tag page reads as a listing; an article with links in its prose and lists does not', () => {
  assert.ok(listingShare(tagPage) >= 0.5, `tag page ${listingShare(tagPage)}`);
  assert.ok(listingShare(article) < LISTING_RULES.below, `article ${listingShare(article)}`);
  assert.equal(listingShare('# Short\n\n[one](/a)'), 0, 'too few blocks to judge');
});

test('a listing ranks just below the hits it links to; one that links to none keeps its place unless it is a strong listing', () => {
  const details = new Map([
    ['article', { listing: 0, linkedFrom: ['tags', 'elsewhere'] }],
    ['tags', { listing: 0.4, linkedFrom: [] }],
    ['other', { listing: 0, linkedFrom: [] }],
    ['archive', { listing: 0.3, linkedFrom: [] }],
    ['index', { listing: 0.9, linkedFrom: [] }],
  ]);
  const ranked = rankListings(
    [
      ['tags', 0.9],
      ['index', 0.85],
      ['archive', 0.8],
      ['article', 0.7],
      ['other', 0.5],
    ],
    details,
  ).map(([id]) => id);
  // tags links to article: just below it; archive links to no hit: stays; index is halved (0.425).
  assert.deepEqual(ranked, ['archive', 'article', 'tags', 'other', 'index']);
});

test('a page the full text found far ahead of the rest stays above pages both lists held at middling ranks', () => {
  const text = [
    { urlId: 'answer', score: 12 },
    { urlId: 'a', score: 3 },
    { urlId: 'b', score: 2.8 },
    { urlId: 'c', score: 2.5 },
  ];
  const nearest = [
    { id: 'b', similarity: 0.3 },
    { id: 'c', similarity: 0.29 },
    { id: 'a', similarity: 0.28 },
  ];
  const fused = [...fuseScores(text, nearest, 0.15)].sort((x, y) => y[1] - x[1]).map(([id]) => id);
  assert.equal(fused[0], 'answer');
  // Reciprocal rank fusion (k = 60) put it third: 1/61 against b's 1/63 + 1/61 and c's 1/64 + 1/62.
  const rrf = (ranks: number[]) => ranks.reduce((s, r) => s + 1 / (60 + r), 0);
  assert.ok(rrf([1]) < rrf([4, 2]) && rrf([1]) < rrf([3, 1]));
  // Only one list: its pages keep its order.
  assert.deepEqual(
    [...fuseScores(text, [], 0.15)].sort((x, y) => y[1] - x[1]).map(([id]) => id),
    ['answer', 'a', 'b', 'c'],
  );
});

test('a full-text weight outside 0–1 is refused with what it must be', async () => {
  const deps = { enrich: {}, vectors: {}, embedder: {} } as unknown as Parameters<typeof hybridSearch>[0];
  for (const textWeight of [-0.1, 1.5, Number.NaN])
    await assert.rejects(hybridSearch(deps, { q: 'compost', textWeight }), /textWeight is .*: it must be a number from 0/);
});
