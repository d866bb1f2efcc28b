import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NEAR_DUPLICATE_DISTANCE, hammingDistance, simhashBands, simhashWideBands } from '../../shared/dedupe/simhash.js';

/** A deterministic stream of 64-bit hashes as 16 hex digits. */
function* hashes(count: number, seed = 7): Generator<string> {
  let x = BigInt(seed);
  for (let i = 0; i < count; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    yield x.toString(16).padStart(16, '0');
  }
}

function flip(hash: string, bits: number[]): string {
  let v = BigInt(`0x${hash}`);
  for (const b of bits) v ^= 1n << BigInt(b);
  return v.toString(16).padStart(16, '0');
}

test('two hashes within the near-duplicate distance always share a wide band, for every way of placing the bits', () => {
  const base = [...hashes(1)][0]!;
  let pairs = 0;
  // Every placement of up to three differing bits: 64 + 2,016 + 41,664 pairs.
  for (let a = 0; a < 64; a++)
    for (let b = a; b < 64; b++)
      for (let c = b; c < 64; c++) {
        const other = flip(base, [...new Set([a, b, c])]);
        assert.ok(hammingDistance(base, other) <= NEAR_DUPLICATE_DISTANCE);
        const mine = simhashWideBands(base);
        const theirs = simhashWideBands(other);
        assert.ok(
          mine.some((v, i) => v === theirs[i]),
          `bits ${a},${b},${c} differ and no band is shared`,
        );
        pairs++;
      }
  assert.ok(pairs > 40_000);
});

test('wide bands are 20 to 22 bits and hold far fewer pages than the 16-bit bands', () => {
  const bands = simhashWideBands('0123456789abcdef');
  assert.equal(bands.length, 6);
  assert.deepEqual(
    bands.map((b) => b.length),
    [6, 6, 6, 6, 6, 5],
  );
  // Blocks of 11,11,11,11,10,10 bits from the top: 0x0123456789abcdef.
  const bits = BigInt('0x0123456789abcdef').toString(2).padStart(64, '0');
  const block = (i: number) => bits.slice([0, 11, 22, 33, 44, 54][i], [11, 22, 33, 44, 54, 64][i]);
  assert.equal(
    bands[0],
    parseInt(block(0) + block(1), 2)
      .toString(16)
      .padStart(6, '0'),
  );
  assert.equal(
    bands[5],
    parseInt(block(4) + block(5), 2)
      .toString(16)
      .padStart(5, '0'),
  );
  // 20,000 random pages: the candidates a page reads (pairs sharing a band) drop more than tenfold.
  const wide = new Map<string, number>();
  const narrow = new Map<string, number>();
  for (const h of hashes(20_000)) {
    simhashWideBands(h).forEach((v, i) => wide.set(`${i}#${v}`, (wide.get(`${i}#${v}`) ?? 0) + 1));
    simhashBands(h).forEach((v, i) => narrow.set(`${i}#${v}`, (narrow.get(`${i}#${v}`) ?? 0) + 1));
  }
  const pairs = (m: Map<string, number>) => [...m.values()].reduce((sum, n) => sum + (n * (n - 1)) / 2, 0);
  assert.ok(pairs(narrow) > 10 * pairs(wide), `pairs sharing a band: ${pairs(narrow)} with 16 bits, ${pairs(wide)} with the wide bands`);
});
