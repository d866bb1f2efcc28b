// The render decision on a web shaped like the apps it must not miss, with both cores busy: three
// app hosts of 50 pages, each revealing one link only after its script runs (two of them hang
// first, which says nothing about the others), and a host of app shells whose renders add nothing.
// Every revealed link is crawled but the hung pages'; the shells stop being rendered after a few
// renders that ran to the end (a render the load cut short is no evidence and does not count), and
// the crawl's stats say how many pages were left unrendered and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawl } from '../../shared/library/crawl.js';
import { RENDER_RULES } from '../../shared/render/decision.js';
import type { ProgressStats } from '../../shared/pipeline/stages/progress.js';
import { tempDir } from '../../support/helpers.js';

const APP_HOSTS = 3;
const APP_PAGES = 50;
const SHELLS = 24;
/** App pages whose script never lets go of the renderer (on the first host). */
const HANGS = new Set([1, 2]);

const prose = (n: number) =>
  Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of page ${n} says something plain about gardens, rivers and the weather.`).join(' ');
const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const index = (name: string, links: string[]) =>
  page(
    `Index of ${name}`,
    `<h1>Index of ${name}</h1><p>${prose(name.length)} ${name}</p>${links.map((l) => `<p><a href="${l}">${name} ${l}</a></p>`).join('')}`,
  );
const appShell = (n: number, script: string) => page(`App ${n}`, `<div id="root"></div><noscript>You need JavaScript.</noscript><script>${script}</script>`);

function appHost(k: number): (path: string) => string | undefined {
  return (path) => {
    if (path === '/')
      return index(
        `app host ${k}`,
        Array.from({ length: APP_PAGES }, (_, i) => `/app/${i + 1}`),
      );
    let m = /^\/app\/(\d+)$/.exec(path);
    if (m) {
      const n = Number(m[1]);
      if (k === 0 && HANGS.has(n)) return appShell(n, `document.addEventListener('DOMContentLoaded', () => { for (;;) {} });`);
      return appShell(
        n,
        `document.getElementById('root').innerHTML = '<h1>App ${k}.${n}</h1><p>Loaded by its script.</p><a href="/revealed/${n}">read on</a>';`,
      );
    }
    m = /^\/revealed\/(\d+)$/.exec(path);
    return m ? page(`Revealed ${k}.${m[1]}`, `<h1>Revealed ${k}.${m[1]}</h1><p>${prose(k * 1000 + Number(m[1]))}</p>`) : undefined;
  };
}

function shellHost(path: string): string | undefined {
  if (path === '/')
    return index(
      'the shells',
      Array.from({ length: SHELLS }, (_, i) => `/shell/${i + 1}`),
    );
  // An app shell whose script adds nothing: rendering it gains no text and no link.
  const m = /^\/shell\/(\d+)$/.exec(path);
  return m ? appShell(Number(m[1]), 'void 0;') : undefined;
}

async function serve(route: (path: string) => string | undefined, log: string[]): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    log.push(path);
    const body = route(path);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test(
  'with both cores busy, --render auto crawls the links only scripts reveal, stops rendering shells that gain nothing, and says what it skipped',
  { timeout: 280_000 },
  async () => {
    const logs = Array.from({ length: APP_HOSTS + 1 }, () => [] as string[]);
    const hosts = await Promise.all([...Array.from({ length: APP_HOSTS }, (_, k) => serve(appHost(k), logs[k]!)), serve(shellHost, logs[APP_HOSTS]!)]);
    const shells = hosts[APP_HOSTS]!.origin;
    // Two CPU-bound processes: the machine's two cores are busy the whole crawl.
    const burners: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    const { dir, cleanup } = tempDir();
    let stats: ProgressStats | undefined;
    const shellRenders: { url: string; ok: boolean; gained: boolean; settled: boolean }[] = [];
    try {
      await crawl(
        hosts.map((h) => `${h.origin}/`),
        {
          data: dir,
          allowPrivateNetwork: true,
          delayMs: 0,
          maxRps: 0,
          render: 'auto',
          renderTimeoutMs: 5000,
          env: {},
          onEvent: (e) => {
            if (e.type === 'done') stats = e.stats;
            if (e.type === 'render' && e.url.startsWith(shells)) shellRenders.push({ url: e.url, ok: e.ok, gained: e.gained, settled: e.settled });
          },
        },
      );
    } finally {
      for (const b of burners) b.kill('SIGKILL');
      await Promise.all(hosts.map((h) => new Promise((r) => h.server.close(r))));
      cleanup();
    }
    const revealed = logs.slice(0, APP_HOSTS).reduce((n, log) => n + new Set(log.filter((p) => p.startsWith('/revealed/'))).size, 0);
    const total = APP_HOSTS * APP_PAGES;
    assert.ok(
      revealed >= total * 0.98,
      `${revealed} of ${total} rendered-only links crawled: ${JSON.stringify(logs.map((l) => l.length))} ${JSON.stringify(stats)}`,
    );
    assert.equal(revealed, total - HANGS.size, 'every app page that did not hang had its link crawled');
    assert.ok(stats, 'the crawl ended with its stats');
    // Rendering the shells stops after a few renders that ran to the end, for their template or their
    // whole host; every shell not rendered is counted as skipped, and no app page is skipped.
    const shellHostName = shells.slice('http://'.length);
    const skips = Object.entries(stats.renderSkipped);
    const told = `${JSON.stringify(stats.renderSkipped)} after ${JSON.stringify(shellRenders)}`;
    assert.equal(skips.length, 1, told);
    assert.match(skips[0]![0], new RegExp(`^(host ${shellHostName}|template /shell/:n of ${shellHostName})$`));
    const shellPages = shellRenders.filter((r) => r.url !== `${shells}/`);
    assert.equal(skips[0]![1] + shellPages.length, SHELLS, `every shell was rendered or counted as skipped: ${told}`);
    const evidence = shellPages.filter((r) => r.ok && (r.gained || r.settled));
    assert.ok(evidence.length <= RENDER_RULES.wastedLimit, `rendering the shells stopped after a few renders that ran to the end: ${told}`);
    assert.ok(
      evidence.every((r) => !r.gained),
      told,
    );
  },
);
