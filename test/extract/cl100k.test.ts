import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cl100k } from '../../shared/extract/cl100k.js';
import { CL100K_RANKS_SOURCE } from '../../shared/extract/runtime-files.js';
import { seededRandom as random } from '../../support/helpers.js';

// trawl's cl100k_base against tiktoken's own (a devDependency, the reference): the same rank
// table, and the same tokens for every text.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const TIKTOKEN_RANKS = require.resolve('tiktoken/encoders/cl100k_base.json');

interface Reference {
  encode_ordinary(text: string): Uint32Array;
}
const ranks = JSON.parse(readFileSync(TIKTOKEN_RANKS, 'utf8')) as { bpe_ranks: string; special_tokens: Record<string, number>; pat_str: string };
const { Tiktoken } = require('tiktoken/lite') as { Tiktoken: new (r: string, s: Record<string, number>, p: string) => Reference };
const reference = new Tiktoken(ranks.bpe_ranks, ranks.special_tokens, ranks.pat_str);
const ours = Cl100k.load(join(ROOT, CL100K_RANKS_SOURCE));

/** Characters the pre-tokenizer treats differently in JavaScript and Rust, or that stress the merging. */
const ALPHABET = [
  ...'abcXYZ019 \t\n\r\'’.,;!?-_/()[]{}"<>@#$%&*+=|~`',
  '\u00a0',
  '\u0085',
  '\ufeff',
  '\u2028',
  '\u2029',
  '\u3000',
  '\u200b',
  '\u200d',
  '\u017f',
  '\u212a',
  '\u0301',
  'é',
  'ß',
  'ø',
  'ж',
  'Ω',
  'ع',
  'ह',
  '中',
  '日',
  '本',
  '한',
  '🎉',
  '👍🏽',
  '👩‍💻',
  '𝔘',
  '½',
  '٣',
  '²',
  "'s",
  "'S",
  "'ll",
  "'LL",
  "'ve",
  "'Re",
  "'d",
  "'M",
  "'t",
  '<|endoftext|>',
  '\r\n',
  '   ',
  '\n\n\n',
];

function texts(): string[] {
  const next = random(31);
  const out: string[] = [];
  for (let i = 0; i < 400; i++) {
    let s = '';
    const length = 1 + Math.floor(next() * 80);
    for (let k = 0; k < length; k++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
    out.push(s);
  }
  // Real prose and markup: the project's own documentation, and a long run without spaces.
  for (const f of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) out.push(readFileSync(join(ROOT, 'docs', f), 'utf8'));
  out.push(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'x'.repeat(300), '12345678901234567890', '🎉'.repeat(40));
  return out;
}

test("the rank table trawl ships is tiktoken's cl100k_base, byte for byte", () => {
  assert.ok(readFileSync(join(ROOT, CL100K_RANKS_SOURCE)).equals(readFileSync(TIKTOKEN_RANKS)));
});

test('encodes every text to the tokens tiktoken gives, and decodes them back to its bytes', () => {
  let tokens = 0;
  for (const text of texts()) {
    const got = ours.encode(text);
    assert.deepEqual(got, Array.from(reference.encode_ordinary(text)), JSON.stringify(text.slice(0, 200)));
    // A second time from the cache: the same.
    assert.deepEqual(ours.encode(text), got);
    assert.ok(Buffer.from(ours.decode(got)).equals(Buffer.from(text, 'utf8')), JSON.stringify(text.slice(0, 200)));
    tokens += got.length;
  }
  assert.ok(tokens > 50_000, `${tokens} tokens compared`);
});

test('a damaged rank table is refused with what is wrong', () => {
  assert.throws(() => new Cl100k({ pat_str: '', bpe_ranks: ranks.bpe_ranks.slice(0, 5000) }), /holds \d+ tokens, not 100,256: the file is damaged/);
});

test('counts any stretch of a text as tiktoken counts the stretch on its own, from one pass over the text', () => {
  const next = random(47);
  let spans = 0;
  for (const text of texts()) {
    const counter = ours.spans(text);
    for (let i = 0; i < 60; i++) {
      const from = Math.floor(next() * text.length);
      const to = from + Math.floor(next() * Math.min(2000, text.length - from + 1));
      const stretch = text.slice(from, to);
      assert.equal(counter.countSpan(from, to), reference.encode_ordinary(stretch).length, JSON.stringify(stretch.slice(0, 200)));
      spans++;
    }
    assert.equal(counter.countSpan(0, text.length), reference.encode_ordinary(text).length);
  }
  assert.ok(spans > 20_000, `${spans} stretches compared`);
});
