// Part of `npm run build`: every Lambda stage bundled by esbuild in one build with code splitting
// into dist/lambda/ (a stage's entry `<stage>.mjs` and the chunks it shares with the others), and
// a manifest of the files each stage loads. An installed package's construct assembles each
// stage's asset from these at synth (lib/stages.ts), adding what ships as files (pdf.js, the
// Chromium of @sparticuz/chromium, the web UI), so a user's synth needs neither esbuild nor Docker
// and the tarball holds the shared code once (85 MB packed before, with a bundle per
// stage and Chromium inside the Render one).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAMBDA_BANNER, PREBUILT_EXTERNALS, STAGES, type StageName } from '../lib/stages.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'lambda');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const result = await build({
  entryPoints: Object.fromEntries(STAGES.map((stage) => [stage, join(ROOT, 'functions', stage, 'index.ts')])),
  outdir: OUT,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  // Names kept: a stack trace in CloudWatch names its functions without a source map in the package.
  keepNames: true,
  banner: { js: LAMBDA_BANNER },
  external: PREBUILT_EXTERNALS,
  metafile: true,
  logLevel: 'warning',
});

/** The files a stage loads: its entry and every chunk it imports, statically or on demand. */
const outputs = result.metafile.outputs;
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const i of outputs[file]?.imports ?? []) if (!i.external) closure(i.path, seen);
  return seen;
}
const manifest = {} as Record<StageName, string[]>;
for (const file of Object.keys(outputs)) {
  // Dynamic imports are entry points too: only the stages' own entries name a stage.
  const stage = basename(file, '.mjs') as StageName;
  if (!STAGES.includes(stage)) continue;
  manifest[stage] = [...closure(file)].map((f) => basename(f)).sort();
}
writeFileSync(join(OUT, 'manifest.json'), JSON.stringify(manifest, null, 2));
process.stderr.write(`bundled ${STAGES.length} Lambda stages into ${OUT} (${Object.keys(outputs).length} files)\n`);
