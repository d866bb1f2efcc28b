// The web UI: search, a page with its links and neighbourhood graph, runs with their chart. Plain
// DOM (every text goes in as text, never as HTML), Cytoscape.js for the graph, uPlot for the chart;
// bundled by `npm run build:ui` and served by the API at `/`, with no network beyond it.
import './locale-guard.js';
import uPlot from 'uplot';

import { api, failure, h, pageLink, tagChip, view, when, type Child, type Json } from './dom.js';
import { changesView } from './changes-view.js';
import { crawlView } from './crawl-view.js';
import { drawGraph } from './graph-view.js';
import { timeLabel, timeTicks } from './time-axis.js';

// ---- search ---------------------------------------------------------------------------------

function hitView(hit: Json): HTMLElement {
  const why = hit.why as Json;
  const reasons = [
    why.terms.length ? `terms: ${why.terms.join(', ')}` : 'no query term in the text',
    why.textRank ? `BM25 #${why.textRank}` : undefined,
    why.vectorRank ? `vector #${why.vectorRank} (similarity ${why.similarity})` : undefined,
    `fused ${why.fused}`,
  ].filter(Boolean);
  return h(
    'li',
    { class: 'hit' },
    h('h3', {}, pageLink(hit.urlId, hit.title || hit.url)),
    h('div', { class: 'url' }, hit.url),
    h('p', { class: 'summary' }, hit.summary),
    h('div', { class: 'tags' }, ...hit.tags.map(tagChip)),
    hit.inlinks.length ? h('div', { class: 'anchors' }, 'linked as: ', hit.inlinks.map((l: Json) => `“${l.anchor}”`).join(', ')) : null,
    h('div', { class: 'why' }, reasons.join(' · ')),
  );
}

async function searchView(params: URLSearchParams): Promise<void> {
  const q = params.get('q') ?? '';
  const form = h(
    'form',
    { class: 'search', role: 'search' },
    h('input', { type: 'search', name: 'q', placeholder: 'Search the crawl…', 'aria-label': 'query', value: q }),
    h('input', { type: 'text', name: 'tags', placeholder: '#tag', 'aria-label': 'tag filter', value: params.get('tags') ?? '' }),
    h('input', { type: 'text', name: 'domain', placeholder: 'domain', 'aria-label': 'domain filter', value: params.get('domain') ?? '' }),
    h('button', { type: 'submit' }, 'Search'),
  ) as HTMLFormElement;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const name of ['q', 'tags', 'domain']) {
      const value = (form.elements.namedItem(name) as HTMLInputElement).value.trim();
      if (value) next.set(name, value);
    }
    location.hash = `#/?${next}`;
  });
  const results = h('section', { id: 'results' });
  view.replaceChildren(form, results);
  (form.elements.namedItem('q') as HTMLInputElement).focus();
  if (!q.trim()) {
    results.append(await topPages());
    return;
  }
  const query = new URLSearchParams({ q, limit: '10' });
  for (const name of ['tags', 'domain']) {
    const v = params.get(name);
    if (v) query.set(name, v.replace(/^#/, ''));
  }
  const list = h('ol', { class: 'hits' });
  const status = h('p', { class: 'status' }, 'Searching…');
  results.replaceChildren(status, list);
  const more = async (cursor?: string) => {
    if (cursor) query.set('cursor', cursor);
    try {
      const r = await api(`/search?${query}`);
      status.textContent =
        r.hits.length || list.children.length ? `${r.textMatches} full-text and ${r.vectorMatches} vector matches · ${r.tookMs} ms` : 'No page matches.';
      list.append(...r.hits.map(hitView));
      results.querySelector('button.more')?.remove();
      if (r.next) {
        const button = h('button', { class: 'more' }, 'More results');
        button.addEventListener('click', () => void more(r.next));
        results.append(button);
      }
    } catch (err) {
      results.append(failure(err));
    }
  };
  await more();
}

async function topPages(): Promise<HTMLElement> {
  try {
    const { pages } = await api('/graph/top?limit=10');
    if (!pages.length) return h('p', { class: 'status' }, 'No ranked pages yet: the ranks are computed when a crawl finishes.');
    return h(
      'section',
      {},
      h('h2', {}, 'Most linked pages'),
      h(
        'ol',
        { class: 'top' },
        ...pages.map((p: Json) =>
          h(
            'li',
            {},
            pageLink(p.urlId, p.title || p.url),
            ` — ${p.inlinks} ${p.inlinks === 1 ? 'inlink' : 'inlinks'} from ${p.hosts} ${p.hosts === 1 ? 'host' : 'hosts'}`,
          ),
        ),
      ),
    );
  } catch (err) {
    return failure(err);
  }
}

// ---- page -----------------------------------------------------------------------------------

function linkTable(links: Json[], total: number, side: 'from' | 'to'): HTMLElement {
  if (!links.length) return h('p', { class: 'status' }, 'None.');
  const rows = links.map((l) =>
    h(
      'tr',
      {},
      h('td', {}, side === 'from' ? pageLink(l.fromId, l.fromUrl) : l.toPageId ? pageLink(l.toPageId, l.toUrl) : l.toUrl),
      h('td', { class: 'anchor' }, l.anchor || '(no text)'),
      h('td', { class: 'context' }, l.context),
      h('td', {}, l.section),
    ),
  );
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: `links ${side === 'from' ? 'inlinks' : 'outlinks'}` },
      h('thead', {}, h('tr', {}, h('th', {}, side === 'from' ? 'From' : 'To'), h('th', {}, 'Anchor'), h('th', {}, 'Context'), h('th', {}, 'Section'))),
      h('tbody', {}, ...rows),
    ),
    total > links.length ? h('p', { class: 'status' }, `${links.length} of ${total} shown`) : null,
  );
}

async function pageView(id: string): Promise<void> {
  view.replaceChildren(h('p', { class: 'status' }, 'Loading…'));
  let p: Json;
  try {
    p = await api(`/pages/${id}`);
  } catch (err) {
    view.replaceChildren(failure(err));
    return;
  }
  const x = p.extraction as Json | undefined;
  const e = p.enrichment as Json | undefined;
  const facts: Array<[string, Child]> = [
    ['Status', `${p.status} ${p.mime}`],
    ['Fetched', when(p.fetchedAt)],
    ['Language', x?.language],
    ['Published', x?.published],
    ['Words', x ? `${x.wordCount} (${x.readingMinutes} min)` : undefined],
    ['Duplicate of', p.duplicateOf ?? x?.nearDuplicateOf ?? x?.textDuplicateOf],
  ];
  const graphBox = h('div', { class: 'graph', id: 'graph', role: 'img', 'aria-label': 'link neighbourhood' });
  const depthPick = h(
    'select',
    { 'aria-label': 'graph depth' },
    h('option', { value: '1' }, '1 hop'),
    h('option', { value: '2' }, '2 hops'),
  ) as HTMLSelectElement;
  depthPick.addEventListener(
    'change',
    () => void drawGraph(graphBox, id, Number(depthPick.value) as 1 | 2).catch((err) => graphBox.replaceChildren(failure(err))),
  );
  view.replaceChildren(
    h(
      'article',
      { class: 'page' },
      h('h1', {}, p.title || p.url),
      h('a', { class: 'url', href: p.url, rel: 'noreferrer nofollow', target: '_blank' }, p.url),
      e ? h('p', { class: 'summary' }, e.summary) : h('p', { class: 'status' }, 'Not enriched yet: run trawl enrich.'),
      e ? h('div', { class: 'tags' }, ...e.tags.map(tagChip)) : null,
      h('dl', { class: 'facts' }, ...facts.filter(([, v]) => v !== undefined && v !== null).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
      h('section', {}, h('h2', {}, 'Link neighbourhood ', depthPick), graphBox),
      h('section', {}, h('h2', {}, `Inlinks (${p.inlinksTotal})`), linkTable(p.inlinks, p.inlinksTotal, 'from')),
      h('section', {}, h('h2', {}, `Outlinks (${p.outlinksTotal})`), linkTable(p.outlinks, p.outlinksTotal, 'to')),
      h(
        'section',
        {},
        h('h2', {}, 'Fetch history'),
        h(
          'table',
          { class: 'history' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'Fetched'), h('th', {}, 'Status'), h('th', {}, 'Content'))),
          h(
            'tbody',
            {},
            ...p.history.map((f: Json) =>
              h(
                'tr',
                {},
                h('td', {}, f.runId),
                h('td', {}, when(f.fetchedAt)),
                h('td', {}, f.status ?? f.error ?? ''),
                h('td', {}, f.changed ? 'changed' : ''),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  await drawGraph(graphBox, id, 1).catch((err) => graphBox.replaceChildren(failure(err)));
}

// ---- runs -----------------------------------------------------------------------------------

async function runsView(before?: number, shown: Json[] = []): Promise<void> {
  try {
    const page = await api(before ? `/runs?before=${before}` : '/runs');
    const runs = [...shown, ...page.runs];
    view.replaceChildren(
      h('h1', {}, 'Runs'),
      runs.length
        ? h(
            'table',
            { class: 'runs' },
            h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'Status'), h('th', {}, 'Started'), h('th', {}, 'Seeds'))),
            h(
              'tbody',
              {},
              ...runs.map((r: Json) =>
                h(
                  'tr',
                  {},
                  h('td', {}, h('a', { href: `#/run/${r.id}` }, `#${r.id}`)),
                  h('td', {}, r.status),
                  h('td', {}, when(r.startedAt)),
                  h('td', {}, r.seeds.join(' ')),
                ),
              ),
            ),
          )
        : h('p', { class: 'status' }, 'No crawl has run yet.'),
    );
    if (page.next) {
      const older = h('button', { class: 'more' }, 'Older runs');
      older.addEventListener('click', () => void runsView(page.next, runs));
      view.append(older);
    }
  } catch (err) {
    view.replaceChildren(failure(err));
  }
}

function bars(title: string, counts: Record<string, number>): HTMLElement {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return h(
    'section',
    { class: 'bars' },
    h('h2', {}, title),
    entries.length
      ? h(
          'ul',
          {},
          ...entries.map(([k, n]) =>
            h(
              'li',
              {},
              h('span', { class: 'label' }, k),
              h('span', { class: 'bar', style: `width:${Math.max(2, (n / max) * 100)}%` }),
              h('span', { class: 'n' }, n),
            ),
          ),
        )
      : h('p', { class: 'status' }, 'None.'),
  );
}

async function runView(id: string): Promise<void> {
  let r: Json;
  try {
    r = await api(`/runs/${id}`);
  } catch (err) {
    view.replaceChildren(failure(err));
    return;
  }
  const chart = h('div', { class: 'chart', id: 'chart' });
  const seconds = ((r.finishedAt ?? Date.now()) - r.startedAt) / 1000;
  view.replaceChildren(
    h('h1', {}, `Run #${r.id} — ${r.status}`),
    h(
      'dl',
      { class: 'facts' },
      ...[
        ['Started', when(r.startedAt)],
        ['Duration', `${seconds.toFixed(1)} s`],
        ['Requests', r.requests],
        ['Pages stored', r.pagesStored],
        ['Unchanged', r.unchanged],
        ['Duplicates', r.duplicates],
        ['Bytes', r.bytes.toLocaleString('en')],
        ['Seeds', r.seeds.join(' ')],
      ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    h('p', {}, h('a', { href: `#/changes?run=${r.id}` }, 'What changed in this run')),
    h('section', {}, h('h2', {}, `Pages per second (${r.bucketMs / 1000} s buckets)`), chart),
    bars('Responses by status', r.fetchesByStatus),
    bars('URLs by state', r.urlsByState),
    bars('Skips by reason', r.skipsByReason),
  );
  const x = r.series.map((p: Json) => p.at / 1000);
  const perSecond = (n: number) => n / (r.bucketMs / 1000);
  const locale = navigator.language;
  const plot = new uPlot(
    {
      width: Math.min(chart.clientWidth || 600, 900),
      height: 220,
      series: [
        { value: (_u, v) => (v == null ? '–' : timeLabel(v, locale)) },
        // Each bucket's point drawn too: a run of one bucket still shows.
        { label: 'pages/s (2xx)', stroke: '#2b8a3e', width: 2, points: { show: true, size: 6, fill: '#2b8a3e' } },
        { label: 'unchanged/s (304)', stroke: '#e8590c', width: 2, points: { show: true, size: 6, fill: '#e8590c' } },
        { label: 'requests/s', stroke: '#5b7aa8', dash: [4, 4], points: { show: true, size: 4, fill: '#5b7aa8' } },
      ],
      axes: [
        {
          // Whole seconds at the least: a tick's label names a second, not part of one.
          incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800],
          values: (_u, splits, _axis, _space, incr) => {
            const ticks = timeTicks(splits, incr, locale);
            chart.dataset.ticks = ticks.join('|');
            return ticks;
          },
        },
        { label: 'per second' },
      ],
    },
    [x, r.series.map((p: Json) => p.pagesPerSecond), r.series.map((p: Json) => perSecond(p.unchanged ?? 0)), r.series.map((p: Json) => perSecond(p.requests))],
    chart,
  );
  // A bucket either side of the run: a run of one bucket is drawn over seconds, not a day.
  if (x.length > 0) plot.setScale('x', { min: x[0] - r.bucketMs / 1000, max: x[x.length - 1] + r.bucketMs / 1000 });
  chart.dataset.series = plot.series
    .slice(1)
    .map((s) => s.label)
    .join('|');
  chart.dataset.unchanged = String(r.series.reduce((n: number, p: Json) => n + (p.unchanged ?? 0), 0));
  chart.dataset.points = String(x.length);
  window.addEventListener('resize', () => plot.setSize({ width: Math.min(chart.clientWidth, 900), height: 220 }), { once: true });
}

// ---- routing --------------------------------------------------------------------------------

async function route(): Promise<void> {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path = '/', query = ''] = hash.split('?');
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === (/^\/(runs?|changes|crawl)\b/.exec(path)?.[1]?.replace(/^run$/, 'runs') ?? 'search'));
  const page = /^\/page\/([0-9a-f]{32})$/.exec(path);
  const run = /^\/run\/(\d+)$/.exec(path);
  if (page) await pageView(page[1]!);
  else if (run) await runView(run[1]!);
  else if (path === '/runs') await runsView();
  else if (path === '/changes') await changesView(new URLSearchParams(query));
  else if (path === '/crawl') crawlView();
  else await searchView(new URLSearchParams(query));
  document.body.dataset.ready = hash;
}

window.addEventListener('hashchange', () => void route());
void route();
