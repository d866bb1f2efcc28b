// The package as a user gets it: `npm pack`, installed into an empty project (offline, from the
// npm cache), then the README's library example and CDK app run there as written, and a user's
// TypeScript type-checks against the published declarations.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { tempDir } from '../../support/helpers.js';
import { consumerLock } from './consumer-lock.js';
import { makePdf } from '../../support/web/pdf.js';
import { CL100K_RANKS, PDFJS_MODULE } from '../../shared/extract/runtime-files.js';
import { NODE20_DRIVER } from '../../shared/store/local/sqlite-driver.js';
import { STAGES } from '../../lib/stages.js';

const ROOT = process.cwd();
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
let project: ReturnType<typeof tempDir>;
let web: SyntheticWeb;
let packedBytes = 0;

/** The first fenced block of the given language after a README heading. */
function readmeBlock(heading: string, lang: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README has no "${heading}"`);
  const start = readme.indexOf(`\`\`\`${lang}\n`, at);
  return readme.slice(start + lang.length + 4, readme.indexOf('\n```', start));
}

/** Runs a command without blocking this process (which serves the synthetic web the example crawls). */
function runAsync(cmd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: project.dir, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}\n${err}`));
    });
  });
}

function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd: project.dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 180_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(async () => {
  project = tempDir('trawl-consumer-');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project.dir], { cwd: ROOT, encoding: 'utf8' }),
  ) as Array<{ filename: string; size: number }>;
  packedBytes = packed[0]!.size;
  const repoPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const { lock, packageJson } = consumerLock(
    join(ROOT, 'package-lock.json'),
    repoPackage,
    { dir: project.dir, file: packed[0]!.filename, name: 'trawl' },
    {
      'aws-cdk-lib': repoPackage.devDependencies!['aws-cdk-lib']!,
      constructs: repoPackage.devDependencies!.constructs!,
      // Node 20 has no node:sqlite: a consumer there installs better-sqlite3 12 as the error message says.
      ...(NODE_MAJOR < 22 ? { [NODE20_DRIVER]: repoPackage.devDependencies![NODE20_DRIVER]! } : {}),
    },
  );
  writeFileSync(join(project.dir, 'package.json'), JSON.stringify(packageJson, null, 2));
  writeFileSync(join(project.dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
  run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
  // Install scripts are off (no compiler in this test): the better-sqlite3 12 that Node 20 loads needs the binding
  // this machine already built, which is the same file.
  const binding = `node_modules/${NODE20_DRIVER}/build/Release/better_sqlite3.node`;
  if (existsSync(join(ROOT, binding))) {
    mkdirSync(dirname(join(project.dir, binding)), { recursive: true });
    copyFileSync(join(ROOT, binding), join(project.dir, binding));
  }
  web = await startWeb({ articles: 6, blogHosts: 1, crawlDelaySeconds: 0 });
});

after(async () => {
  await web?.close();
  project?.cleanup();
});

// The budget holds the learned block model, scope model and tag ranker too (about 40 KB packed:
// each is in the library and in the stage bundles that extract or tag).
test('the tarball holds the library, the construct, their declarations, the CLI, the web UI, the scoring profiles and the Lambda stages, and nothing else, in at most 5.2 MB', () => {
  assert.ok(packedBytes <= 5_200_000, `the tarball is ${(packedBytes / 1e6).toFixed(2)} MB`);
  const pkg = join(project.dir, 'node_modules/trawl');
  for (const f of [
    'dist/shared/index.js',
    'dist/shared/index.d.ts',
    'dist/lib/index.js',
    'dist/lib/index.d.ts',
    'bin/trawl.js',
    'dist/lambda/manifest.json',
    'dist/lambda/fetch-worker.mjs',
    'dist/ui/index.html',
    'dist/ui/app.js',
  ]) {
    assert.ok(existsSync(join(pkg, f)), f);
  }
  assert.deepEqual(readdirSync(pkg).sort(), ['LICENSE', 'README.md', 'bin', 'dist', 'package.json', 'profiles']);
  assert.ok(existsSync(join(pkg, 'profiles/fire-protection.json')), 'the shipped scoring profiles');
  // dist/profiles: the shipped profiles the compiled code imports (profiles/ is their source, for users to copy).
  assert.deepEqual(readdirSync(join(pkg, 'dist')).sort(), ['lambda', 'lib', 'profiles', 'shared', 'ui']);
  assert.ok(existsSync(join(pkg, 'dist/profiles/fire-protection.json')));
});

test("the README's library example runs as written against the installed package", async () => {
  writeFileSync(join(project.dir, 'example.mjs'), readmeBlock('## Use as a library', 'js'));
  const out = await runAsync(process.execPath, ['example.mjs', `${web.origins.blog1}/`], { TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_DELAY_MS: '0' });
  assert.match(out, /^stored http:\/\/127\.0\.0\.\d+:\d+\/ /m);
  assert.match(out, /run 1 finished: \d+ pages in \d+ requests/);
  assert.match(out, /^\d\.\d{4} \d+ inlinks http/m);
  assert.match(out, /^ {2}"[^"]+" from http:\/\/.* \((body|nav|header|footer|sidebar)\): …/m);
  assert.ok(existsSync(join(project.dir, 'my-crawl', 'trawl.db')));
});

test("the README's CDK app synthesizes a stack with trawl/cdk from the prebuilt stages, with no esbuild or Docker, and every stage loads", () => {
  writeFileSync(join(project.dir, 'app.mjs'), readmeBlock('### Use the construct in your CDK app', 'js'));
  const out = run(process.execPath, ['app.mjs'], { CDK_OUTDIR: join(project.dir, 'cdk.out') });
  assert.match(out, /Crawling\/Crawler\/Stages\/fetch-worker ready/);
  const template = JSON.parse(readFileSync(join(project.dir, 'cdk.out', 'Crawling.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  const fns = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
  assert.equal(fns.length, STAGES.length);
  const assets = readdirSync(join(project.dir, 'cdk.out'))
    .filter((d) => d.startsWith('asset.'))
    .map((a) => join(project.dir, 'cdk.out', a));
  const stages = assets.filter((a) => existsSync(join(a, 'index.mjs')));
  assert.equal(stages.length, STAGES.length);
  assert.ok(!existsSync(join(project.dir, 'node_modules/esbuild')), 'esbuild is not installed with the package');
  // What each stage reads as files came from the packages installed with trawl, assembled at synth.
  const holding = (f: string) => stages.filter((a) => existsSync(join(a, f))).length;
  assert.ok(holding('node_modules/unpdf/dist/pdfjs.mjs') >= 1, 'the stages that read PDFs ship pdf.js');
  assert.equal(holding('node_modules/@sparticuz/chromium/bin/chromium.br'), 1, 'the Render stage ships Chromium');
  // The browser driver is in the Render stage's code (a chunk it imports on demand), and in no other stage's.
  const driverChunks = (stage: string) =>
    readdirSync(stage).filter((f) => f.endsWith('.mjs') && readFileSync(join(stage, f), 'utf8').includes('Target.setDiscoverTargets'));
  assert.equal(stages.filter((a) => driverChunks(a).length > 0).length, 1, 'the Render stage holds its browser driver');
  assert.equal(holding('ui/app.js'), 1, 'the search API ships the web UI');
  // The tokenizer's rank table ships with every stage whose code chunks or counts tokens (all but the search API).
  assert.equal(holding(CL100K_RANKS), STAGES.length - 1, 'the stages that tokenize ship the rank table');
  // Every stage loads as Lambda loads it: copied out of the project (whose node_modules holds trawl's
  // dependencies) to a directory where what is above it holds the AWS SDK (which the nodejs24.x
  // runtime ships; this checkout's stands in) and nothing else, so a package the bundle needs at run
  // time and does not ship fails here, as it would in AWS.
  const lambdaRoot = tempDir('trawl-lambda-');
  mkdirSync(join(lambdaRoot.dir, 'node_modules'));
  for (const scope of ['@aws-sdk', '@smithy']) symlinkSync(join(ROOT, 'node_modules', scope), join(lambdaRoot.dir, 'node_modules', scope));
  for (const asset of stages) {
    const stage = join(lambdaRoot.dir, basename(asset));
    cpSync(asset, stage, { recursive: true });
    const tokenizes = existsSync(join(stage, CL100K_RANKS));
    const load = ['--input-type=module', '-e', `const m = await import(${JSON.stringify(join(stage, 'index.mjs'))}); console.log(typeof m.handler);`];
    assert.equal(run(process.execPath, load).trim(), 'function', asset);
    if (tokenizes) {
      // The stage reads that very file as it loads: without it, it fails at once with the file's name.
      renameSync(join(stage, CL100K_RANKS), join(stage, `${CL100K_RANKS}.away`));
      assert.throws(() => run(process.execPath, load), new RegExp(`rank table .*${CL100K_RANKS} is missing`), asset);
      renameSync(join(stage, `${CL100K_RANKS}.away`), join(stage, CL100K_RANKS));
    }
    // The browser driver's chunk loads from the stage with nothing beside it, as it does when the first page renders.
    for (const chunk of driverChunks(stage)) {
      writeFileSync(join(stage, 'driver-probe.mjs'), `await import(${JSON.stringify(join(stage, chunk))}); console.log('loaded');`);
      assert.equal(run(process.execPath, [join(stage, 'driver-probe.mjs')]).trim(), 'loaded', `${asset}: ${chunk}`);
    }
    // pdf.js resolves from the stage as its bundle resolves it (import.meta.resolve beside index.mjs) and reads a PDF.
    if (existsSync(join(stage, 'node_modules/unpdf'))) {
      writeFileSync(
        join(stage, 'pdf-probe.mjs'),
        `if (!Promise.withResolvers) Promise.withResolvers = () => { let a, b; const promise = new Promise((x, y) => { a = x; b = y; }); return { promise, resolve: a, reject: b }; };` +
          `const { getDocument } = await import(import.meta.resolve(${JSON.stringify(PDFJS_MODULE)}));` +
          `const pdf = await getDocument({ data: new Uint8Array(Buffer.from(process.argv[2], 'base64')), verbosity: 0 }).promise; console.log(pdf.numPages);`,
      );
      const pdf = makePdf(['A page about crawling.', 'Its second page.'], 'Probe').toString('base64');
      assert.equal(run(process.execPath, [join(stage, 'pdf-probe.mjs'), pdf]).trim(), '2', asset);
    }
  }
  lambdaRoot.cleanup();
});

test("a user's TypeScript type-checks against the published declarations, and a wrong option does not", () => {
  writeFileSync(
    join(project.dir, 'check.ts'),
    `
import { crawl, openStore, type CrawlOptions, type RunSummary, type StoredPage } from 'trawl';
import { Crawler, type CrawlerProps } from 'trawl/cdk';
import type { PageRecord, EdgeRecord } from 'trawl/types';
const stored: Pick<PageRecord, 'url'> & Pick<EdgeRecord, 'anchor'> = { url: 'https://example.com/', anchor: 'home' };
void stored;
const options: CrawlOptions = { maxPages: 3, scope: 'domain', extract: 'links', onPage: (p: StoredPage) => void p.links.length };
const summary: Promise<RunSummary> = crawl(['https://example.com/'], options);
const props: CrawlerProps = { crawls: [], maxFetchConcurrency: 4 };
void summary; void props; void Crawler; void openStore;
// @ts-expect-error: not a setting
const wrong: CrawlOptions = { maxPagez: 3 };
void wrong;
`,
  );
  writeFileSync(
    join(project.dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] },
      files: ['check.ts'],
    }),
  );
  run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
});
