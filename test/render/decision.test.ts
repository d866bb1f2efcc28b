import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../shared/extract/dom.js';
import { shellSignals } from '../../shared/extract/shell-signals.js';
import { afterRender, RENDER_RULES, renderConcurrencyFor, renderDecision, renderGained, templateOf } from '../../shared/render/decision.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { renderModeFor } from '../../shared/config/render-settings.js';
import { htmlPage, prose } from '../../support/web/pages.js';

const signals = (html: string) => shellSignals(parseDocument(html), html);
const decide = (html: string, mode: 'auto' | 'never' | 'always' = 'auto', host?: Parameters<typeof renderDecision>[3]) =>
  renderDecision(signals(html), mode, 1, host);

test('shells are recognised by their empty roots, markers, loading text and noscript warnings', () => {
  assert.deepEqual(decide('<html><body><div id="root"></div><script src="/a.js"></script></body></html>'), { render: true, reason: 'empty-root #root' });
  assert.equal(decide('<html><body><app-root></app-root><script src="/m.js"></script></body></html>').reason, 'empty-root app-root');
  assert.equal(decide('<html><body><div id="app"><p>Loading…</p></div><script></script></body></html>').reason, 'loading-shell');
  assert.equal(decide('<html><body><noscript>Please enable JavaScript to use this site.</noscript><div>Hi</div></body></html>').reason, 'noscript-warning');
  assert.equal(
    decide('<html><body><div id="__next"><span>x</span></div><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>').reason,
    'framework-without-content __NEXT_DATA__',
  );
  const big = `<html><body><div>${'<span class="x"></span>'.repeat(400)}Hi</div><script>app()</script></body></html>`;
  assert.match(decide(big).reason, /^little-text 2 chars in \d+ bytes$/);
});

test('a plain HTML page is never rendered under auto; modes and host overrides decide first', () => {
  const plain = htmlPage('Plain', `<h1>Plain</h1><p>${prose(1, 200)}</p><script>track()</script>`);
  assert.deepEqual(decide(plain), { render: false, reason: 'enough-content' });
  // A server-rendered page keeps an empty widget mount: enough text, not a shell.
  assert.equal(decide(htmlPage('SSR', `<p>${prose(2, 300)}</p><div id="root"></div><script></script>`)).render, false);
  assert.deepEqual(decide(plain, 'always'), { render: true, reason: 'render-always' });
  assert.deepEqual(decide('<div id="root"></div>', 'never'), { render: false, reason: 'render-never' });
  const settings = { render: 'auto' as const, renderHost: ['app.example=always', 'Static.Example:8080=never'] };
  assert.equal(renderModeFor(settings, 'app.example'), 'always');
  assert.equal(renderModeFor(settings, 'static.example:8080'), 'never');
  assert.equal(renderModeFor(settings, 'other.example'), 'auto');
});

test('a host whose renders gain nothing stops being rendered; one where they gain is rendered on thin scripted pages', () => {
  const shell = '<html><body><div id="root"></div><script src="/a.js"></script></body></html>';
  let host = afterRender(undefined, 1, false);
  host = afterRender(host, 1, false);
  assert.equal(decide(shell, 'auto', host).render, true);
  host = afterRender(host, 1, false);
  assert.match(decide(shell, 'auto', host).reason, /^host-gains-nothing \(3 renders/);
  // Another run starts over.
  assert.equal(renderDecision(signals(shell), 'auto', 2, host).render, true);
  const gaining = afterRender(undefined, 1, true);
  const thin = '<html><body><div class="page"><p>Short intro.</p></div><script src="/a.js"></script></body></html>';
  assert.deepEqual(decide(thin, 'auto', gaining), { render: true, reason: 'host-needs-rendering' });
  assert.equal(decide('<html><body><p>Short, no script.</p></body></html>', 'auto', gaining).render, false);
});

test('a render gains with new text or new links, not with the same page', () => {
  assert.equal(renderGained({ textChars: 0, links: 0 }, { textChars: 800, links: 0 }), true);
  assert.equal(renderGained({ textChars: 900, links: 4 }, { textChars: 950, links: 4 }), false);
  assert.equal(renderGained({ textChars: 900, links: 4 }, { textChars: 900, links: 5 }), true);
});

test("a page template whose renders gain nothing stops being rendered while the host's other templates go on", () => {
  assert.equal(templateOf('https://a.example/item/123?ref=x'), '/item/:n');
  assert.equal(templateOf('https://a.example/2026/11/post-7'), '/:n/:n/:n');
  assert.equal(templateOf('https://a.example/about'), '/about');
  const shell = '<html><body><div id="root"></div><script src="/a.js"></script></body></html>';
  const page = (url: string, host: Parameters<typeof renderDecision>[3]) => renderDecision(signals(shell), 'auto', 1, host, url);
  // The app section gains every time; the login wall never does. The host as a whole gains too
  // often for its own rule (gained × 4 ≥ wasted), so only the template's tally can stop the wall.
  let host = afterRender(undefined, 1, true, 'https://a.example/app/1');
  host = afterRender(host, 1, true, 'https://a.example/app/2');
  host = afterRender(host, 1, false, 'https://a.example/login/1');
  assert.equal(page('https://a.example/login/2', host).render, true, 'one render that gained nothing is not enough');
  host = afterRender(host, 1, false, 'https://a.example/login/2');
  assert.deepEqual(page('https://a.example/login/3', host), {
    render: false,
    reason: 'template-gains-nothing /login/:n (2 renders without new text or links)',
  });
  assert.equal(page('https://a.example/app/3', host).render, true, 'the gaining template is still rendered');
  assert.equal(renderDecision(signals(shell), 'auto', 1, host).render, true, 'a decision without the URL counts the host only');
  // A template that has gained once keeps being rendered, whatever its misses.
  host = afterRender(
    afterRender(afterRender(host, 1, false, 'https://a.example/app/4'), 1, false, 'https://a.example/app/5'),
    1,
    false,
    'https://a.example/app/6',
  );
  assert.equal(page('https://a.example/app/7', host).render, true);
  // The tallies stay bounded: the oldest template goes first.
  for (let i = 0; i < RENDER_RULES.templatesKept + 5; i++) host = afterRender(host, 1, false, `https://a.example/s${'x'.repeat(i)}/1`);
  assert.equal(Object.keys(host.templates ?? {}).length, RENDER_RULES.templatesKept);
  assert.equal(host.templates?.['/login/:n'], undefined, 'the oldest tallies were dropped');
});

test('render concurrency: auto is one page a core as free memory allows, from 1 to 8; a number is taken as it is', () => {
  assert.equal(renderConcurrencyFor('auto', { cores: 2, freeMb: 20_000, pageMemoryMb: 512 }), 2);
  assert.equal(renderConcurrencyFor('auto', { cores: 16, freeMb: 64_000, pageMemoryMb: 512 }), 8);
  assert.equal(renderConcurrencyFor('auto', { cores: 16, freeMb: 2_000, pageMemoryMb: 512 }), 3, 'a page may take its heap cap and ~150 MB of renderer');
  assert.equal(renderConcurrencyFor('auto', { cores: 4, freeMb: 300, pageMemoryMb: 512 }), 1, 'never less than one');
  assert.equal(renderConcurrencyFor(5, { cores: 1, freeMb: 100, pageMemoryMb: 512 }), 5);
  assert.equal(resolveSettings({}, {}).renderConcurrency, 'auto');
  assert.equal(resolveSettings({ 'render-concurrency': '3' }, {}).renderConcurrency, 3);
  assert.throws(() => resolveSettings({ 'render-concurrency': '0' }, {}), /auto or a whole number from 1 to 32/);
});
