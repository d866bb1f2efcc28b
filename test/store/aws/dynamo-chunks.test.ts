// A page's text is kept once in the table: CHUNK items point into the EXTRACT item's markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkItems, chunksOf } from '../../../shared/store/aws/dynamo-items.js';
import type { ChunkRecord } from '../../../shared/ports/index.js';

const markdown = 'One two three. Four five six. Seven eight nine.';
const chunk = (seq: number, text: string): ChunkRecord => ({ urlId: 'u', seq, id: `c${seq}`, position: seq / 3, tokens: 3, text });

test('a chunk that is part of the markdown keeps only its place; one that is not keeps its text', async () => {
  const chunks = [chunk(0, 'One two three. Four five six.'), chunk(1, 'Four five six. Seven eight nine.'), chunk(2, 'Seven  eight nine.')];
  const items = chunkItems(chunks, markdown);
  assert.deepEqual(
    items.map((i) => [i.SK, i.text ?? null, i.start ?? null, i.end ?? null]),
    [
      ['CHUNK#00000', null, 0, 29],
      ['CHUNK#00001', null, 15, 47],
      ['CHUNK#00002', 'Seven  eight nine.', null, null],
    ],
  );
  let reads = 0;
  const back = await chunksOf(items, async () => (reads++, markdown));
  assert.deepEqual(back, chunks);
  assert.equal(reads, 1, 'the markdown is read once for all the chunks');
  assert.deepEqual(await chunksOf([items[2]!], async () => assert.fail('a chunk with its text needs no markdown')), [chunks[2]]);
  await assert.rejects(
    chunksOf(items, async () => 'short'),
    /points past its page's markdown: extract the page again/,
  );
});
