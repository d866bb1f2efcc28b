// `npm run build:ui` (and part of `npm run build`): the web UI bundled by esbuild into dist/ui/ —
// app.js (the UI, Cytoscape.js and uPlot), app.css (ours and uPlot's) and index.html — which the
// API serves at `/`; nothing is fetched from a CDN.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'shared', 'api', 'ui');
const OUT = join(ROOT, 'dist', 'ui');
const require = createRequire(import.meta.url);

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: [join(SRC, 'main.ts')],
  outfile: join(OUT, 'app.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
writeFileSync(join(OUT, 'app.css'), `${uplotCss}\n${readFileSync(join(SRC, 'app.css'), 'utf8')}`);
copyFileSync(join(SRC, 'index.html'), join(OUT, 'index.html'));
process.stderr.write(`bundled the web UI into ${OUT}\n`);
