// Part of `npm run build`: each Lambda stage bundled by esbuild into dist/lambda/<stage>/, with the
// options a source checkout's NodejsFunction uses at synth, so an installed package synthesizes
// with neither esbuild nor Docker on the user's machine.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { externalModules, LAMBDA_BANNER, packageClosure, PDFJS_FILES, SHIPPED_PACKAGES, STAGES, UI_DIR } from '../lib/stages.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'lambda');

rmSync(OUT, { recursive: true, force: true });
for (const stage of STAGES) {
  const dir = join(OUT, stage);
  await build({
    entryPoints: [join(ROOT, 'functions', stage, 'index.ts')],
    outfile: join(dir, 'index.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: LAMBDA_BANNER },
    external: externalModules(stage),
    logLevel: 'warning',
  });
  for (const pkg of packageClosure(ROOT, SHIPPED_PACKAGES[stage] ?? [])) {
    cpSync(join(ROOT, 'node_modules', pkg), join(dir, 'node_modules', pkg), { recursive: true });
  }
  // The search API serves the web UI (npm run build:ui runs first in npm run build).
  if (stage === 'search-api') cpSync(UI_DIR, join(dir, 'ui'), { recursive: true });
  if (stage === 'extract-page') {
    for (const f of PDFJS_FILES) {
      mkdirSync(join(dir, 'node_modules/pdfjs-dist', dirname(f)), { recursive: true });
      cpSync(join(ROOT, 'node_modules/pdfjs-dist', f), join(dir, 'node_modules/pdfjs-dist', f));
    }
  }
}
process.stderr.write(`bundled ${STAGES.length} Lambda stages into ${OUT}\n`);
