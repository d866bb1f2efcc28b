import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkText, countTokens, DEFAULT_CHUNKING } from '../../shared/extract/chunks.js';
import { extractPdf } from '../../shared/extract/pdf.js';
import { hammingDistance, simhash, simhashBands } from '../../shared/dedupe/simhash.js';
import { makePdf } from '../../support/web/pdf.js';
import { prose } from '../../support/web/pages.js';

function sentencesText(n: number): string {
  return Array.from({ length: n }, (_, i) => `Sentence number ${i} talks about ${prose(i, 12)}.`).join(' ');
}

test('chunks by tokens at sentence boundaries: ~512 tokens, 15 % overlap, linked both ways', () => {
  const text = sentencesText(300);
  const chunks = chunkText(text);
  assert.ok(chunks.length >= 4);
  for (const [i, c] of chunks.entries()) {
    assert.equal(c.tokens, countTokens(c.text));
    assert.ok(c.tokens <= DEFAULT_CHUNKING.maxTokens);
    if (i < chunks.length - 1) assert.ok(c.tokens >= 400 && c.tokens <= 600, `chunk ${i}: ${c.tokens} tokens`);
    assert.ok(c.tokens >= DEFAULT_CHUNKING.minTokens, `chunk ${i}: ${c.tokens}`);
    assert.match(c.text, /^Sentence number \d+/, 'starts at a sentence');
    assert.match(c.text, /\.$/, 'ends at a sentence');
    assert.equal(c.prevId, chunks[i - 1]?.id);
    assert.equal(c.nextId, chunks[i + 1]?.id);
    assert.match(c.id, /^[0-9a-f]{32}$/);
  }
  assert.equal(chunks[0]!.position, 0);
  assert.ok(chunks.every((c, i) => i === 0 || (c.position > chunks[i - 1]!.position && c.position < 1)));
  const lastOfFirst = chunks[0]!.text.split(/(?<=\.) /).at(-1)!;
  assert.ok(chunks[1]!.text.includes(lastOfFirst), 'the next chunk repeats the end of the one before');
  const overlapTokens = countTokens(
    chunks[0]!.text
      .split(/(?<=\.) /)
      .filter((s) => chunks[1]!.text.startsWith(s) || chunks[1]!.text.includes(s))
      .join(' '),
  );
  assert.ok(overlapTokens >= 0.15 * 512 * 0.8 && overlapTokens <= 0.15 * 512 * 2, `overlap ${overlapTokens} tokens`);
});

test('merges a short tail and splits an over-long sentence', () => {
  const tail = chunkText(sentencesText(32));
  assert.ok(tail.every((c) => c.tokens >= 100));
  const huge = `${'word '.repeat(3000)}.`;
  const parts = chunkText(huge);
  assert.ok(parts.length >= 3);
  assert.ok(parts.every((c) => c.tokens <= 1024));
  assert.deepEqual(chunkText(''), []);
  assert.deepEqual(chunkText('\n\n  \n'), [], 'white space alone is no chunk');
});

test("chunks keep every character of the text, and count their tokens as tiktoken does, links' long URLs too", () => {
  const url = `https://example.com/${'a-long-path-segment/'.repeat(6)}page.html`;
  const lines = Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0 ? `![figure ${i}](${url}?n=${i})` : i % 3 === 1 ? `...and ${prose(i, 30)}?! See [the page](${url}).` : `!!!\n${prose(i, 20)}.`,
  );
  const text = lines.join('\n');
  const chunks = chunkText(text);
  assert.ok(chunks.length >= 2);
  const words = (s: string) => s.replace(/\s+/g, '');
  // Without the overlap, the chunks are the text: no image's mark or line of marks is left out.
  let rebuilt = chunks[0]!.text;
  for (const c of chunks.slice(1)) {
    const overlap = [...Array(c.text.length).keys()].reverse().find((n) => n > 0 && rebuilt.endsWith(c.text.slice(0, n))) ?? 0;
    rebuilt += c.text.slice(overlap);
  }
  assert.equal(words(rebuilt), words(text));
  for (const c of chunks) assert.equal(c.tokens, countTokens(c.text));
  // A run of 149 characters without spaces (the URL) is counted as tiktoken counts it (36 tokens): only a piece longer than 64 characters is merged in parts.
  assert.equal(countTokens(url), 36);
  assert.ok(countTokens('x'.repeat(6400)) >= 100, 'a 6,400-letter piece is merged in parts of 64');
});

test('an over-long sentence in a non-Latin script is cut between characters, never inside one', () => {
  // Mathematical letters (4 bytes, more than one token each) and no sentence end: the sentence is cut by tokens, inside characters.
  const text = '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'.repeat(1200);
  const parts = chunkText(text);
  assert.ok(parts.length >= 3);
  for (const c of parts) assert.ok(!c.text.includes('\uFFFD'), `a chunk holds a replacement character: ${c.text.slice(0, 40)}…`);
  // The pieces are the text's own characters, from its first to its last.
  assert.ok(text.startsWith(parts[0]!.text.replaceAll(' ', '').slice(0, 200)));
  assert.ok(text.endsWith(parts.at(-1)!.text.replaceAll(' ', '').slice(-200)));
});

test("chunks a page that quotes a tokenizer's special tokens, as plain text", () => {
  const text = 'The model stops at <|endoftext|> and chats use <|im_start|> markers. That is all.';
  const chunks = chunkText(text, { ...DEFAULT_CHUNKING, minTokens: 1 });
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0]!.text, text);
  assert.ok(countTokens('<|endoftext|>') > 1, 'spelled out, not the one special token');
});

test('gives identical chunks identical ids', () => {
  assert.deepEqual(
    chunkText(sentencesText(100)).map((c) => c.id),
    chunkText(sentencesText(100)).map((c) => c.id),
  );
});

test('SimHash puts near-duplicates within distance 3 and different texts far apart', () => {
  const base = prose(7, 400);
  const edited = base.replace(/^(\w+)/, 'changed');
  const other = prose(8, 400);
  assert.match(simhash(base), /^[0-9a-f]{16}$/);
  assert.ok(hammingDistance(simhash(base), simhash(edited)) <= 3);
  assert.ok(hammingDistance(simhash(base), simhash(other)) > 10);
  assert.equal(hammingDistance('ffffffffffffffff', '0000000000000000'), 64);
  assert.equal(hammingDistance('0000000000000001', '0000000000000000'), 1);
});

test('SimHash values stay what earlier versions stored (a stored hash is compared with new ones)', () => {
  assert.equal(simhash(''), '0000000000000000');
  assert.equal(simhash('solar'), '1974f603a9e598f7');
  assert.equal(simhash('solar panels'), '1940000328c00887');
  assert.equal(simhash('The quick brown fox jumps over the lazy dog near the river bank.'), 'ed7baf740730e590');
  assert.equal(simhash('Ünïcode 日本語 text, written twice: Ünïcode 日本語 text'), '844878e468202306');
});

test('hashes within distance 3 always share a band', () => {
  const h = simhash(prose(3, 300));
  for (const bits of [[0], [5, 21], [3, 30, 60], [15, 16, 47]]) {
    let hi = parseInt(h.slice(0, 8), 16);
    let lo = parseInt(h.slice(8), 16);
    for (const b of bits) {
      if (b < 32) hi ^= 1 << b;
      else lo ^= 1 << (b - 32);
    }
    const flipped = (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
    assert.equal(hammingDistance(h, flipped), bits.length);
    assert.ok(simhashBands(h).some((band, i) => simhashBands(flipped)[i] === band));
  }
});

test('extracts text, page count and title from a PDF', async () => {
  const pdf = await extractPdf(makePdf(['First page about crawling.', 'Second page (with parentheses).'], 'Crawler manual'));
  assert.equal(pdf.pages, 2);
  assert.match(pdf.text, /First page about crawling\./);
  assert.match(pdf.text, /Second page \(with parentheses\)\./);
  assert.equal(pdf.title, 'Crawler manual');
});
