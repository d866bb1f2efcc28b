import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KnownUrls, type Known } from '../../shared/frontier/known-urls.js';
import { urlId } from '../../shared/url/canonical.js';
import { createHash } from 'node:crypto';

test('known URLs answer as a Map would, through growth, for 50,000 url ids', () => {
  const known = new KnownUrls();
  const map = new Map<string, Known>();
  const states: Known[] = ['queued', 'soft', 'final'];
  const ids = Array.from({ length: 50_000 }, (_, i) => urlId(`http://h${i % 97}.test/p/${i}`));
  ids.forEach((id, i) => {
    known.set(id, states[i % 3]!);
    map.set(id, states[i % 3]!);
  });
  // Settle every other URL, as the crawl does when a queued URL is fetched.
  ids.forEach((id, i) => {
    if (i % 2 === 0) {
      known.set(id, 'final');
      map.set(id, 'final');
    }
  });
  assert.equal(known.size, map.size);
  for (const id of ids) assert.equal(known.get(id), map.get(id));
  for (let i = 0; i < 5_000; i++) {
    const unseen = urlId(`http://unseen.test/${i}`);
    assert.equal(known.get(unseen), undefined);
    assert.equal(known.has(unseen), false);
  }
});

test('known URLs take ids of another shape (hashed, not parsed)', () => {
  const known = new KnownUrls();
  for (const id of ['a', 'u1', 'u2', 'not-hex-at-all-but-long-enough-xx', 'ABCDEF0123456789ABCDEF0123456789']) known.set(id, 'queued');
  assert.equal(known.get('u1'), 'queued');
  assert.equal(known.get('u3'), undefined);
  assert.equal(known.get('ABCDEF0123456789ABCDEF0123456789'), 'queued');
  known.set('u1', 'final');
  assert.equal(known.get('u1'), 'final');
  assert.equal(known.size, 5);
});

test('url ids are the first 128 bits of the SHA-256 of the canonical URL, in hex (stored ids stay valid)', () => {
  assert.equal(urlId('http://a.test/'), 'b28e3efd6948b8cf6ad9c713cc1225ad');
  for (const url of ['http://a.test/x?y=1', 'https://b.test/\u00e9t\u00e9'])
    assert.equal(urlId(url), createHash('sha256').update(url).digest('hex').slice(0, 32));
});
