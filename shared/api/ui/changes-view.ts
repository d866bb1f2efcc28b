// "What changed": a run's changes since the run before, by kind, with the word diff of each
// changed page one click away (removed words struck through, added ones marked).
import { api, failure, h, pageLink, view, type Json } from './dom.js';

const KINDS = ['new', 'changed', 'removed', 'orphaned', 'newly-linked', 'rank-shift', 'unchanged'] as const;

function detail(c: Json): string {
  const parts: string[] = [];
  if (c.measure) {
    const m = c.measure as Json;
    parts.push(`${Math.round(m.blocksChanged * 100)} % of text blocks (+${m.blocksAdded} −${m.blocksRemoved}), SimHash distance ${m.simhashDistance}`);
    if (m.fieldsChanged.length) parts.push(`fields: ${m.fieldsChanged.join(', ')}`);
  }
  if (c.removedBy) parts.push(c.removedBy === 'unlinked' ? 'no page links it any more' : `answered ${c.removedBy}`);
  if (c.linkedFrom) parts.push(`now linked from ${c.linkedFrom.join(', ')}`);
  if (c.unlinkedFrom) parts.push(`no longer linked from ${c.unlinkedFrom.join(', ')}`);
  if (c.rank) parts.push(`inlinks ${c.rank.inlinksBefore} → ${c.rank.inlinksAfter}`);
  return parts.join('; ');
}

/** The diff of one changed page, loaded when asked for. */
function diffToggle(c: Json): HTMLElement {
  const box = h('div', { class: 'diff', hidden: '' });
  const button = h('button', { type: 'button', class: 'show-diff', 'aria-expanded': 'false' }, 'Show the diff');
  button.addEventListener('click', async () => {
    const open = box.hidden;
    box.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? 'Hide the diff' : 'Show the diff';
    if (!open || box.childElementCount) return;
    try {
      const { parts } = await api(`/changes/${c.runId}/${c.urlId}/diff`);
      box.append(
        ...parts.map((p: Json) =>
          p.op === '-' ? h('del', {}, p.text) : p.op === '+' ? h('ins', {}, p.text) : h('span', { class: p.op === '…' ? 'gap' : undefined }, p.text),
        ),
      );
    } catch (err) {
      box.append(failure(err));
    }
  });
  return h('div', {}, button, box);
}

export async function changesView(params: URLSearchParams): Promise<void> {
  const run = params.get('run');
  const kind = params.get('kind');
  const query = new URLSearchParams({ limit: '1000', ...(run ? { run } : {}), kind: kind ?? KINDS.join(',') });
  let changes: Json[];
  try {
    ({ changes } = await api(`/changes?${query.toString()}`));
  } catch (err) {
    view.replaceChildren(h('h1', {}, 'What changed'), failure(err));
    return;
  }
  if (changes.length === 0) {
    view.replaceChildren(
      h('h1', {}, 'What changed'),
      h('p', { class: 'status' }, 'No changes yet: the first crawl of a data directory has nothing to compare with. Crawl again to see what changed.'),
    );
    return;
  }
  const runId = changes[0]!.runId as number;
  const previous = changes.find((c) => c.previousRunId)?.previousRunId as number | undefined;
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const shown = changes.filter((c) => (kind ? c.kind === kind : c.kind !== 'unchanged'));
  const filter = (k: string | undefined, label: string) =>
    h('a', { href: `#/changes?run=${runId}${k ? `&kind=${k}` : ''}`, class: (kind ?? undefined) === k ? 'active' : undefined }, label);
  view.replaceChildren(
    h('h1', {}, `What changed — run #${runId}${previous ? ` against run #${previous}` : ''}`),
    h(
      'p',
      { class: 'kinds' },
      filter(undefined, 'all but unchanged'),
      ...KINDS.filter((k) => counts.has(k)).flatMap((k) => [' · ', filter(k, `${k} ${counts.get(k)}`)]),
    ),
    h(
      'table',
      { class: 'changes' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Kind'), h('th', {}, 'Page'), h('th', {}, 'What'))),
      h(
        'tbody',
        {},
        ...shown.map((c) =>
          h(
            'tr',
            { 'data-kind': c.kind },
            h('td', {}, h('span', { class: `kind kind-${c.kind}` }, c.kind)),
            h('td', {}, pageLink(c.urlId, c.title ?? c.url), h('div', { class: 'url' }, c.url)),
            h('td', {}, detail(c), c.kind === 'changed' ? diffToggle(c) : null),
          ),
        ),
      ),
    ),
  );
}
