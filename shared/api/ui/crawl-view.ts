// "New crawl": a form that POSTs /crawls (with the server's write token, asked for once), then
// follows the crawl live from its Server-Sent Events (read with fetch, which can send the token,
// where EventSource cannot) until it finishes, with a button that stops it.
import { failure, h, view, type Json } from './dom.js';

const WRITE_TOKEN = 'trawl-write-token';

/** A write request with the write token; a 401 or 403 asks for it once and tries again. */
async function write(method: string, path: string, body?: Json): Promise<Json> {
  const send = () => {
    const token = sessionStorage.getItem(WRITE_TOKEN) ?? sessionStorage.getItem('trawl-token');
    return fetch(path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  };
  let res = await send();
  if (res.status === 401) {
    const given = window.prompt('Starting a crawl needs the server’s write token (the --write-token it was started with):');
    if (given) {
      sessionStorage.setItem(WRITE_TOKEN, given);
      res = await send();
    }
  }
  const answer = (await res.json().catch(() => ({ error: res.statusText }))) as Json;
  if (res.status === 404 && path === '/crawls') throw new Error('this server does not start crawls: run trawl serve with --write-token <secret>');
  if (!res.ok) throw new Error(String(answer.error ?? res.statusText));
  return answer;
}

/** Each Server-Sent Event of a crawl, until the stream ends. */
async function follow(id: string, onEvent: (type: string, data: Json) => void): Promise<void> {
  const token = sessionStorage.getItem(WRITE_TOKEN) ?? sessionStorage.getItem('trawl-token');
  const res = await fetch(`/crawls/${id}/events`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok || !res.body) throw new Error(`the crawl's events did not open (${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const type = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) onEvent(type, JSON.parse(data) as Json);
    }
  }
}

function numbers(progress: Json): HTMLElement {
  return h(
    'dl',
    { class: 'facts live' },
    ...[
      ['Requests', progress.requests],
      ['Pages stored', progress.pagesStored],
      ['Queued', progress.queued],
      ['Errors', progress.errors],
    ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-field': String(k).toLowerCase().replace(' ', '-') }, v ?? 0)]),
  );
}

export function crawlView(): void {
  const seeds = h('textarea', {
    name: 'seeds',
    rows: '3',
    required: '',
    placeholder: 'https://example.com/\nsearch:fire sprinkler inspection',
  }) as HTMLTextAreaElement;
  const maxPages = h('input', { name: 'maxPages', type: 'number', min: '1', value: '200' }) as HTMLInputElement;
  const maxDepth = h('input', { name: 'maxDepth', type: 'number', min: '0', value: '5' }) as HTMLInputElement;
  const status = h('section', { class: 'crawl-status', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'new-crawl' },
    h('label', {}, 'Seeds, one a line (URLs, search: queries, accounts)', seeds),
    h('label', {}, 'Most pages', maxPages),
    h('label', {}, 'Deepest link level', maxDepth),
    h('button', { type: 'submit' }, 'Start the crawl'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void start();
  });
  async function start(): Promise<void> {
    const list = seeds.value
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    status.replaceChildren(h('p', { class: 'status' }, 'Starting…'));
    let id: string;
    try {
      ({ id } = await write('POST', '/crawls', { seeds: list, maxPages: Number(maxPages.value), maxDepth: Number(maxDepth.value) }));
    } catch (err) {
      status.replaceChildren(failure(err));
      return;
    }
    const state = h('p', { class: 'status', 'data-state': 'queued' }, 'Queued behind the crawls before it…');
    const live = h('div', {}, numbers({}));
    const stop = h('button', { type: 'button', class: 'stop' }, 'Stop');
    stop.addEventListener('click', () => void write('DELETE', `/crawls/${id}`).catch((err: unknown) => status.append(failure(err))));
    status.replaceChildren(h('h2', {}, `Crawl ${id.slice(0, 8)}`), state, live, stop);
    try {
      await follow(id, (type, data) => {
        if (data.progress) live.replaceChildren(numbers(data.progress));
        if (type === 'crawl.started') state.replaceChildren('Crawling…');
        if (type === 'crawl.finished' || type === 'crawl.stopped') {
          const summary = data.summary as Json;
          live.replaceChildren(numbers({ requests: summary.requests, pagesStored: summary.pagesStored, queued: 0, errors: data.progress?.errors ?? 0 }));
          state.replaceChildren(
            `${type === 'crawl.finished' ? 'Finished' : 'Stopped (resumable)'}: `,
            h('a', { href: `#/run/${summary.runId}` }, `run #${summary.runId}`),
          );
          stop.remove();
        }
        if (type === 'crawl.failed') {
          state.replaceChildren(failure(data.error));
          stop.remove();
        }
        state.dataset.state = type;
      });
    } catch (err) {
      status.append(failure(err));
    }
  }
  view.replaceChildren(h('h1', {}, 'New crawl'), form, status);
}
