// Part of `npm run build`: every Lambda stage bundled by esbuild in one build with code splitting
// into dist/lambda/ (a stage's entry `<stage>.mjs` and the chunks it shares with the others), and
// a manifest of the files each stage loads. An installed package's construct assembles each
// stage's asset from these at synth (lib/stages.ts), adding what ships as files (pdf.js, the
// Chromium of @sparticuz/chromium, the web UI), so a user's synth needs neither esbuild nor Docker
// and the tarball holds the shared code once (85 MB packed before, with a bundle per
// stage and Chromium inside the Render one).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { BROWSER_DRIVER, LAMBDA_BANNER, PREBUILT_EXTERNALS, RENDER_STAGE, STAGES, type StageName } from '../lib/stages.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'lambda');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const common: BuildOptions = {
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
  outExtension: { '.js': '.mjs' },
  metafile: true,
  logLevel: 'warning',
};
const entry = (stage: StageName) => [stage, join(ROOT, 'functions', stage, 'index.ts')] as const;
// Every stage but Render in one build, sharing chunks; the browser driver is left out of it (their
// code names it, none renders). The Render stage is built in a folder of its own with the driver.
const others = await build({
  ...common,
  entryPoints: Object.fromEntries(STAGES.filter((s) => s !== RENDER_STAGE).map(entry)),
  outdir: OUT,
  external: [...PREBUILT_EXTERNALS, BROWSER_DRIVER],
});
const render = await build({
  ...common,
  entryPoints: Object.fromEntries([entry(RENDER_STAGE)]),
  outdir: join(OUT, RENDER_STAGE),
  external: PREBUILT_EXTERNALS,
});

/** The files a stage loads (relative to OUT): its entry and every chunk it imports, statically or on demand. */
const outputs = { ...others.metafile!.outputs, ...render.metafile!.outputs };
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
  manifest[stage] = [...closure(file)].map((f) => relative(OUT, resolve(f))).sort();
}
writeFileSync(join(OUT, 'manifest.json'), JSON.stringify(manifest, null, 2));
process.stderr.write(`bundled ${STAGES.length} Lambda stages into ${OUT} (${Object.keys(outputs).length} files)\n`);
