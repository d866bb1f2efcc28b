// ReplayWeb.page's engine on a loopback host: wabac.js's service worker (as published), a page
// that loads an archive into it and replays URLs framed, and the archive's files served by range
// requests, as a static host serves them.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { serve } from '../../support/helpers.js';

// The package exports its library, not its service worker: sw.js sits beside the library's entry.
const require = createRequire(import.meta.url);
const SW = readFileSync(join(dirname(require.resolve('@webrecorder/wabac')), 'sw.js'));

const LOADER = `<!doctype html><html><body><script>
window.loadWacz = async (url) => {
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  const reg = await navigator.serviceWorker.ready;
  return new Promise((resolve, reject) => {
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data.msg_type === 'collAdded') resolve(e.data.name);
      if (e.data.msg_type === 'collProgress' && e.data.error) reject(new Error(e.data.error));
    });
    reg.active.postMessage({ msg_type: 'addColl', name: 'trawl', skipExisting: false, file: { sourceUrl: url } });
  });
};
// A replayed page runs framed, as in ReplayWeb.page (unframed, it sends the window to the replay UI).
window.replayText = (src) => new Promise((resolve) => {
  const frame = document.createElement('iframe');
  frame.onload = () => resolve(frame.contentDocument.body.innerText);
  frame.src = src;
  document.body.append(frame);
});
// The bytes and status a replay answers for a URL (identity mode: the archived payload as it was).
window.replayBytes = async (src) => {
  const res = await fetch(src);
  return { status: res.status, length: (await res.arrayBuffer()).byteLength, type: res.headers.get('content-type') };
};
</script></body></html>`;

/**
 * Serves the loader page at `/index.html`, the service worker at `/sw.js` and each file at its
 * path (`files`: URL path to file on disk); `asked` lists every path requested.
 */
export async function replayHost(files: Record<string, string>): Promise<{ origin: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const host = await serve((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/' || req.url === '/index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(LOADER);
    if (req.url?.startsWith('/sw.js')) return res.writeHead(200, { 'content-type': 'application/javascript', 'service-worker-allowed': '/' }).end(SW);
    const file = files[req.url ?? ''];
    if (!file) return res.writeHead(404).end();
    const type = file.endsWith('.json') ? 'application/json' : 'application/wacz';
    const size = statSync(file).size;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range) return createReadStream(file).pipe(res.writeHead(200, { 'content-type': type, 'content-length': size, 'accept-ranges': 'bytes' }));
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    res.writeHead(206, { 'content-type': type, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}`, 'accept-ranges': 'bytes' });
    createReadStream(file, { start, end }).pipe(res);
  });
  return { origin: host.origin, asked, close: host.close };
}
