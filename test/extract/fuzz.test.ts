import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { extractPage } from '../../shared/extract/extract-page.js';
import { canonicalize } from '../../shared/url/canonical.js';
import { seededRandom as random } from '../../support/helpers.js';

const dir = new URL('../fixtures/extract/corpus/', import.meta.url);
const pages = readdirSync(dir)
  .filter((f) => f.endsWith('.html.gz'))
  .slice(0, 12)
  .map((f) => gunzipSync(readFileSync(new URL(f, dir))).toString('utf8'));
const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };

const MANGLERS: Record<string, (html: string, rnd: () => number) => string> = {
  truncated: (html, rnd) => html.slice(0, Math.floor(rnd() * html.length)),
  'tags shuffled': (html, rnd) => {
    const parts = html.split('<');
    for (let i = parts.length - 1; i > 0; i--) {
      if (rnd() < 0.3) {
        const j = Math.floor(rnd() * (i + 1));
        [parts[i], parts[j]] = [parts[j]!, parts[i]!];
      }
    }
    return parts.join('<');
  },
  'deep nesting': (html, rnd) => {
    const at = Math.floor(rnd() * html.length);
    return `${html.slice(0, at)}${'<div><span><table><tr><td>'.repeat(4000)}deep${html.slice(at)}`;
  },
  'huge attributes': (html, rnd) => {
    const at = html.indexOf('<p') >= 0 ? html.indexOf('<p') : Math.floor(rnd() * html.length);
    return `${html.slice(0, at)}<p class="${'x '.repeat(500_000)}" data-x="${'"'.repeat(0)}${'y'.repeat(1_000_000)}">big</p>${html.slice(at)}`;
  },
  'stray bytes': (html, rnd) =>
    Array.from(html, (ch) => (rnd() < 0.01 ? String.fromCharCode(Math.floor(rnd() * 0xffff)) : ch))
      .join('')
      .replace(/[\ud800-\udfff]/g, '\ufffd'),
  'unclosed everything': (html) => html.replace(/<\/[a-z0-9]+>/gi, ''),
};

test('mangled real pages never make extractPage throw, and each takes bounded CPU time', () => {
  const rnd = random(20261123);
  for (const [name, mangle] of Object.entries(MANGLERS)) {
    for (const [i, page] of pages.entries()) {
      const html = mangle(page, rnd);
      // CPU time, not wall: a loaded machine stretches the wall clock, a quadratic blow-up the CPU.
      const started = process.cpuUsage();
      let x;
      assert.doesNotThrow(() => {
        x = extractPage(html, 'https://fuzz.example/page', opts);
      }, `${name}, page ${i}`);
      const used = process.cpuUsage(started);
      const ms = (used.user + used.system) / 1000;
      assert.ok(ms < 5000, `${name}, page ${i}: ${ms.toFixed(0)} ms`);
      assert.equal(typeof x!.text, 'string');
      assert.equal(typeof x!.markdown, 'string');
    }
  }
});
