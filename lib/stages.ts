import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { environmentOf } from '../shared/config/lambda-environment.js';
import { OWN_FILES, PDFJS_MODULE } from '../shared/extract/runtime-files.js';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, Duration, Stack, Validations, type CfnElement, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FRONTIER_INDEX, INLINKS_INDEX } from '../shared/store/aws/table-layout.js';
import { archiveKeys } from '../shared/ports/archive-keys.js';
import { nagRef } from './nag.js';

/** The repository root (a source checkout): functions are referenced by entry path only. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the compiled construct is (`dist/lib` in the package, `lib` in a source checkout). */
const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * The stages built by `npm run build` beside the compiled construct (`dist/lambda/`: one
 * code-split build, `manifest.json` naming each stage's files): what an installed package uses,
 * so a user's synth needs neither esbuild nor Docker. A source checkout has none and bundles each
 * stage with NodejsFunction.
 */
const PREBUILT = join(HERE, '..', 'lambda');

/** Every Lambda stage: its folder under `functions/`. */
export const STAGES = [
  'init-run',
  'discover-targets',
  'run-progress',
  'finalize-run',
  'fetch-worker',
  'extract-page',
  'record-failure',
  'run-ended',
  'render-page',
  'summarize-page',
  'index-page',
  'search-api',
] as const;
export type StageName = (typeof STAGES)[number];

export interface StageSizing {
  memoryMb: number;
  timeout: Duration;
}

export interface StagesProps {
  /** Reserved concurrency per stage (the Summarize and Index stages' cap on model calls in flight). */
  reserved?: Partial<Record<StageName, number>>;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  sizing: Record<StageName, StageSizing>;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  environment: Record<string, string>;
}

/** Files of an installed package that a stage's code reads by path at run time, shipped in its `node_modules/` beside the bundle. */
interface PackageFiles {
  name: string;
  files: string[];
  /** Shipped with one stage, or with every stage whose bundle names this module (its code holds the string). */
  shippedWith: { stage: StageName } | { bundleNaming: string };
}

/** pdf.js runs in a worker thread that imports it by path: its serverless build (one file of unpdf) ships with every stage whose bundle names it. */
const PDFJS: PackageFiles = {
  name: 'unpdf',
  files: ['package.json', 'dist/pdfjs.mjs'],
  shippedWith: { bundleNaming: PDFJS_MODULE },
};

/** What the stages read from installed packages at run time, beside their bundles. */
const RUNTIME_FILES: readonly PackageFiles[] = [PDFJS];

/** Chromium ships for x86_64 only: the Render stage runs there, every other stage on arm64. */
export const X86_STAGES: ReadonlySet<StageName> = new Set(['render-page']);

/**
 * Packages shipped as they are beside a stage's bundle (`node_modules/`), never bundled: the
 * Render stage's `@sparticuz/chromium` finds its Brotli-packed browser relative to its own files.
 * Its browser driver, puppeteer-core, is bundled.
 */
export const SHIPPED_PACKAGES: Partial<Record<StageName, string[]>> = { 'render-page': ['@sparticuz/chromium'] };
/**
 * Modules the Render stage's WebSocket library (ws, under puppeteer-core) asks for with require()
 * and goes on without: native add-ons it uses when installed. Left out of the bundles.
 */
const NEVER_LOADED = ['bufferutil', 'utf-8-validate'];
/** The stage that renders pages, and its browser driver: bundled there, left out of every other stage (whose code names it but never renders). */
export const RENDER_STAGE: StageName = 'render-page';
export const BROWSER_DRIVER = 'puppeteer-core';

/** The AWS SDK clients every stage uses, which the nodejs24.x runtime ships: left out of the bundles. */
const RUNTIME_SDK = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-sqs', '@aws-sdk/client-sfn'];
/** Every package shipped beside some stage. */
const SHIPPED = [...new Set(Object.values(SHIPPED_PACKAGES).flat())];
/** What the prebuilt stages leave out: the SDK clients the runtime ships, and what ships as files beside a stage. */
export const PREBUILT_EXTERNALS = [...RUNTIME_SDK, ...SHIPPED, ...NEVER_LOADED];
/** Stages that use S3 Vectors or Bedrock: their clients are bundled (newer than a runtime's SDK may be). */
const ENRICH_STAGES: ReadonlySet<StageName> = new Set(['summarize-page', 'index-page', 'finalize-run', 'search-api']);
/** Stages that only read the table and the bucket (the search API). */
/**
 * What each stage may do to the table and the bucket: exactly the actions its code calls (the
 * cloud suites record every SDK call a handler makes and check it against these grants: `npm run
 * check:iam`). Every stage reads items (Get, Query, BatchGet); writes and scans are per stage.
 */
export const STAGE_ACCESS: Record<StageName, { table: string[]; objects: Array<'read' | 'write' | 'retire-text-segments' | 'retire-compacted-warcs'> }> = {
  'init-run': { table: ['PutItem', 'UpdateItem'], objects: ['read'] },
  'discover-targets': { table: ['PutItem', 'UpdateItem', 'BatchWriteItem'], objects: ['read', 'write'] },
  'run-progress': { table: ['UpdateItem'], objects: ['read'] },
  // FinalizeRun deletes the full-text segments a merge replaced (DeleteObject under search/text/) and
  // the small WARC objects a run's end compacted (under warc/).
  'finalize-run': {
    table: ['PutItem', 'UpdateItem', 'BatchWriteItem', 'Scan'],
    objects: ['read', 'write', 'retire-text-segments', 'retire-compacted-warcs'],
  },
  'fetch-worker': { table: ['PutItem', 'UpdateItem', 'BatchWriteItem'], objects: ['read', 'write'] },
  'extract-page': { table: ['PutItem', 'UpdateItem', 'BatchWriteItem'], objects: ['read', 'write'] },
  'record-failure': { table: ['PutItem', 'UpdateItem'], objects: ['read', 'write'] },
  'run-ended': { table: ['UpdateItem'], objects: ['read'] },
  'render-page': { table: ['PutItem', 'UpdateItem'], objects: ['read', 'write'] },
  'summarize-page': { table: ['PutItem', 'UpdateItem'], objects: ['read'] },
  // Index clears the page's dead letter (DeleteItem): without it no vector would be indexed.
  'index-page': { table: ['PutItem', 'UpdateItem', 'BatchWriteItem', 'DeleteItem'], objects: ['read', 'write'] },
  'search-api': { table: ['Scan'], objects: ['read'] },
};

/** What reading an item or object encrypted with a customer-managed key needs. */
const KEY_READ = ['kms:Decrypt', 'kms:DescribeKey'];
/** And writing one: DynamoDB and S3 ask KMS for a data key (exact actions: no wildcard for cdk-nag to flag). */
const KEY_READ_WRITE = [...KEY_READ, 'kms:Encrypt', 'kms:GenerateDataKey'];

/** The web UI's bundle (`npm run build:ui`), shipped as `ui/` beside the search API's bundle. */
export const UI_DIR = join(ROOT, 'dist', 'ui');

/**
 * What esbuild leaves out of a stage's bundle: the SDK, what ships beside the stage, and in every
 * stage the packages shipped beside another (the browser driver is imported only when a browser
 * starts, which only Render does), as the prebuilt build leaves them out.
 */
export function externalModules(name: StageName): string[] {
  return [...(ENRICH_STAGES.has(name) ? RUNTIME_SDK : ['@aws-sdk/*']), ...SHIPPED, ...NEVER_LOADED, ...(name === RENDER_STAGE ? [] : [BROWSER_DRIVER])];
}

/** CommonJS dependencies call require(); give the ESM bundle one. */
export const LAMBDA_BANNER = "import { createRequire as __trawlCreateRequire } from 'node:module'; const require = __trawlCreateRequire(import.meta.url);";

/**
 * The Lambda stages: NodejsFunction bundled by esbuild on this machine (no Docker), ESM,
 * nodejs24.x on arm64, each with its own log group and only the table and bucket actions it uses.
 */
export class CrawlStages extends Construct {
  readonly functions = {} as Record<StageName, lambda.Function>;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: StagesProps,
  ) {
    super(scope, id);
    for (const name of STAGES) this.functions[name] = this.stage(name);
  }

  private stage(name: StageName): lambda.Function {
    const sizing = this.props.sizing[name];
    const logGroup = new logs.LogGroup(this, `${name}-logs`, { retention: this.props.logRetention, removalPolicy: this.props.removalPolicy });
    const common = {
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: X86_STAGES.has(name) ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: sizing.memoryMb,
      timeout: sizing.timeout,
      reservedConcurrentExecutions: this.props.reserved?.[name],
      logGroup,
      environment: {
        ...this.props.environment,
        ...environmentOf({ table: this.props.table.tableName, bucket: this.props.bucket.bucketName }),
        POWERTOOLS_SERVICE_NAME: 'trawl',
        POWERTOOLS_METRICS_NAMESPACE: 'trawl',
        NODE_OPTIONS: '--enable-source-maps',
      },
    };
    const fn = existsSync(join(PREBUILT, 'manifest.json'))
      ? new lambda.Function(this, name, { ...common, handler: 'index.handler', code: prebuiltCode(name) })
      : new NodejsFunction(this, name, {
          ...common,
          entry: join(ROOT, 'functions', name, 'index.ts'),
          projectRoot: ROOT,
          depsLockFilePath: join(ROOT, 'package-lock.json'),
          bundling: bundlingOptions(name),
        });
    this.grant(fn, name);
    return fn;
  }

  private grant(fn: lambda.Function, name: StageName): void {
    const access = STAGE_ACCESS[name];
    const reads = ['GetItem', 'Query', 'BatchGetItem'];
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...reads, ...access.table].map((a) => `dynamodb:${a}`),
        resources: [this.props.table.tableArn, ...[INLINKS_INDEX.name, FRONTIER_INDEX.name].map((ix) => `${this.props.table.tableArn}/index/${ix}`)],
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: access.objects.includes('write') ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject'],
        resources: [this.props.bucket.arnForObjects('*')],
      }),
    );
    if (access.objects.includes('retire-text-segments'))
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [this.props.bucket.arnForObjects(`${archiveKeys.textIndex()}*`)] }),
      );
    if (access.objects.includes('retire-compacted-warcs'))
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [this.props.bucket.arnForObjects(`${archiveKeys.warcPrefix()}*`)] }),
      );
    // Without ListBucket S3 answers a missing key with 403, not 404, and "not there yet" would be an error.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.props.bucket.bucketArn] }));
    // A customer-managed key on the table or the bucket: the same reads and writes need it (the
    // statements above are exact actions, not the grant* helpers, so the keys are granted here).
    const writesTable = access.table.some((a) => a !== 'Scan');
    this.props.table.encryptionKey?.grant(fn, ...(writesTable ? KEY_READ_WRITE : KEY_READ));
    this.props.bucket.encryptionKey?.grant(fn, ...(access.objects.includes('write') ? KEY_READ_WRITE : KEY_READ));
    const role = fn.role!;
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'The managed basic execution role only lets the function write its own logs.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagRef(this, this.props.bucket.bucketArn)}/*]`,
        reason:
          'Objects are content-addressed and keyed by run and URL: their names are not known at deploy time. Only Get (and Put, for writers) on this bucket.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagRef(this, this.props.bucket.bucketArn)}/${archiveKeys.textIndex()}*]`,
        reason: 'Full-text segments are named when they are written; only the function that merges them deletes, and only under search/text/.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagRef(this, this.props.bucket.bucketArn)}/${archiveKeys.warcPrefix()}*]`,
        reason:
          'A run’s end deletes the small WARC objects it compacted, named by the workers as they wrote them; only FinalizeRun deletes, and only under warc/.',
      },
    );
  }
}

/**
 * A prebuilt stage's asset, assembled at synth on this machine (CDK's local bundling; the image is
 * never pulled): its entry as `index.mjs`, the chunks it loads, and the files it reads at run time
 * from the packages installed with trawl.
 */
function prebuiltCode(name: StageName): lambda.Code {
  const manifest = JSON.parse(readFileSync(join(PREBUILT, 'manifest.json'), 'utf8')) as Record<StageName, string[]>;
  return lambda.Code.fromAsset(PREBUILT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: lambda.Runtime.NODEJS_24_X.bundlingImage,
      // Part of CDK's staging cache key (the local function is not): without it every stage would get the first one's asset.
      environment: { TRAWL_STAGE: name },
      local: {
        tryBundle(outputDir: string): boolean {
          // A stage's files sit side by side (the Render stage's are built in a folder of their own).
          for (const file of manifest[name])
            copyFileSync(join(PREBUILT, file), join(outputDir, basename(file) === `${name}.mjs` ? 'index.mjs' : basename(file)));
          shipFiles(name, outputDir, HERE);
          return true;
        },
      },
    },
  });
}

/** The installed directory of a package, found as Node finds it from `from` (nested node_modules first). */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A package and its production dependencies as installed, each found from the package that needs it (one not installed, such as an optional one on another platform, is left out). */
function installedClosure(names: string[], from: string): Array<{ name: string; dir: string }> {
  const found = new Map<string, string>();
  const visit = (name: string, parent: string) => {
    const dir = installedDir(name, parent);
    if (!dir || found.has(name)) return;
    found.set(name, dir);
    const deps = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const dep of Object.keys(deps)) visit(dep, dir);
  };
  for (const name of names) visit(name, from);
  return [...found].map(([name, dir]) => ({ name, dir }));
}

/** What a prebuilt stage reads as files: the installed packages' files it loads by path (RUNTIME_FILES), the Chromium package (Render), the web UI (search API). */
function shipFiles(name: StageName, outputDir: string, from: string): void {
  const code = readdirSync(outputDir)
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => readFileSync(join(outputDir, f), 'utf8'))
    .join('\n');
  const ships = ({ shippedWith: w }: PackageFiles) => ('stage' in w ? w.stage === name : code.includes(w.bundleNaming));
  for (const pkg of RUNTIME_FILES.filter(ships)) {
    const dir = installedDir(pkg.name, from);
    if (!dir) throw new Error(`the ${name} stage ships ${pkg.name} beside its code, and ${pkg.name} (a dependency of trawl) is not installed: run npm install`);
    for (const f of pkg.files) {
      mkdirSync(join(outputDir, 'node_modules', pkg.name, dirname(f)), { recursive: true });
      copyFileSync(join(dir, f), join(outputDir, 'node_modules', pkg.name, f));
    }
  }
  // trawl's own files come from where the compiled code reads them (dist/shared; the source in a checkout): the package holds them once.
  for (const own of OWN_FILES.filter((f) => code.includes(f.name))) copyFileSync(join(from, '..', own.source), join(outputDir, own.name));
  for (const pkg of SHIPPED_PACKAGES[name] ?? []) {
    const closure = installedClosure([pkg], from);
    if (!closure.some((p) => p.name === pkg))
      throw new Error(
        `the ${name} stage ships ${pkg}, an optional dependency of trawl that is not installed (npm install --omit=optional leaves it out): run npm install ${pkg} in the app that synthesizes the stack`,
      );
    for (const p of closure) cpSync(p.dir, join(outputDir, 'node_modules', p.name), { recursive: true });
  }
  if (name === 'search-api') cpSync(join(from, '..', 'ui'), join(outputDir, 'ui'), { recursive: true });
}

/** esbuild options of a source checkout's bundles (`npm run build`'s prebuilt ones, scripts/build-lambdas.ts, match them in one split build). */
function bundlingOptions(name: StageName): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: 'node24',
    platform: 'node',
    mainFields: ['module', 'main'],
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    banner: LAMBDA_BANNER,
    // The nodejs24.x runtime ships AWS SDK v3.
    externalModules: externalModules(name),
    forceDockerBundling: false,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...RUNTIME_FILES.flatMap(({ name: pkg, files, shippedWith: w }) => {
          if ('stage' in w && w.stage !== name) return [];
          const copy = files
            .map(
              (f) =>
                `mkdir -p "${join(outputDir, 'node_modules', pkg, dirname(f))}" && cp "${join(inputDir, 'node_modules', pkg, f)}" "${join(outputDir, 'node_modules', pkg, f)}"`,
            )
            .join(' && ');
          return ['stage' in w ? copy : `if grep -qF "${w.bundleNaming}" "${join(outputDir, 'index.mjs')}"; then ${copy}; fi`];
        }),
        ...OWN_FILES.map(
          ({ name: file, source }) => `if grep -qF "${file}" "${join(outputDir, 'index.mjs')}"; then cp "${join(ROOT, source)}" "${join(outputDir, file)}"; fi`,
        ),
        ...(name === 'search-api'
          ? [`test -f "${join(UI_DIR, 'index.html')}" || (cd "${ROOT}" && npx tsx scripts/build-ui.ts)`, `cp -R "${UI_DIR}" "${join(outputDir, 'ui')}"`]
          : []),
        ...installedClosure(SHIPPED_PACKAGES[name] ?? [], inputDir).map(
          ({ name: pkg, dir }) => `mkdir -p "${join(outputDir, 'node_modules', dirname(pkg))}" && cp -R "${dir}" "${join(outputDir, 'node_modules', pkg)}"`,
        ),
      ],
    },
  };
}

/** The logical id CloudFormation will give an element (cdk-nag names resources by it in findings). */
export function logicalIdOf(element: CfnElement): string {
  return Stack.of(element).resolve(element.logicalId) as string;
}
