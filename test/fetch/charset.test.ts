import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeText } from '../../shared/fetch/charset.js';
import { strayBytesPage } from '../../support/web/hostile.js';

test('follows a declared UTF-8 when only a few bytes are invalid (a ratio, not a count)', () => {
  const decoded = decodeText(strayBytesPage(), 'utf-8');
  assert.equal(decoded.charset, 'utf-8');
  assert.equal(decoded.guessed, undefined);
  assert.match(decoded.text, /<title>日本語のページ<\/title>/);
});

test('switches to windows-1252 when most non-ASCII bytes are invalid UTF-8, and says it guessed', () => {
  const latin = Buffer.from('<p>Caf\xe9 cr\xe8me, na\xefve fa\xe7ade, \x93quoted\x94 \x80 5</p>', 'latin1');
  const decoded = decodeText(latin, 'utf-8');
  assert.equal(decoded.charset, 'windows-1252');
  assert.equal(decoded.text, '<p>Café crème, naïve façade, \u201cquoted\u201d \u20ac 5</p>');
  assert.deepEqual(decoded.guessed, { declared: 'utf-8', invalidRatio: 1 });
});

test('a character cut at the end of a capped body is not counted as invalid', () => {
  const full = Buffer.from('<p>東京</p>'.repeat(3) + 'é', 'utf8');
  const decoded = decodeText(full.subarray(0, full.length - 1), 'utf-8');
  assert.equal(decoded.charset, 'utf-8');
});
