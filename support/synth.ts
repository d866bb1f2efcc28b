// Synthesizes the CDK app (with real esbuild bundling, or without it and cached across test files) into a temp dir.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../lib/app.js';
import { tempDir } from './helpers.js';

export interface Synthesized {
  template: Record<string, unknown> & { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  outdir: string;
  cleanup(): void;
}

/** Inputs of a synthesis without bundling: the construct's sources, the code they read, the default crawls and profiles, the locked CDK. */
const SYNTH_INPUTS = ['lib', 'shared', 'profiles', 'crawls.json', 'package-lock.json'];

/** A path's files (itself when it is one), in a stable order. */
function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return (readdirSync(path, { recursive: true }) as string[])
    .map((f) => join(path, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/**
 * The key of a synthesis without bundling: its options and every input's content. Eleven test files
 * synthesize the same app (~3 s each); the first one in a run writes the template, the others read it.
 */
function cacheKey(options: object): string {
  return createHash('sha256').update(JSON.stringify(options)).update(inputsDigest()).digest('hex').slice(0, 32);
}

let inputs: string | undefined;
/** The inputs' content, read once a process (a file may synthesize more than once). */
function inputsDigest(): string {
  if (inputs === undefined) {
    const hash = createHash('sha256');
    for (const file of SYNTH_INPUTS.flatMap(filesUnder)) hash.update(file).update(readFileSync(file));
    inputs = hash.digest('hex');
  }
  return inputs;
}

export function synthApp(
  options: { bundle?: boolean; crawlsFile?: string; context?: Record<string, unknown>; env?: { account?: string; region?: string } } = {},
): Synthesized {
  const out = tempDir('trawl-cdk-');
  // Bundled assets and a crawls file of the test's own (with profiles beside it) are not cached.
  const cached = options.bundle === false && options.crawlsFile === undefined ? join(tmpdir(), `trawl-synth-${cacheKey(options)}.json`) : undefined;
  if (cached && existsSync(cached)) {
    const [artifactId, text] = JSON.parse(readFileSync(cached, 'utf8')) as [string, string];
    writeFileSync(join(out.dir, `${artifactId}.template.json`), text);
    return { template: JSON.parse(text) as Synthesized['template'], outdir: out.dir, cleanup: out.cleanup };
  }
  const { app, stack } = buildApp({
    outdir: out.dir,
    crawlsFile: options.crawlsFile,
    // Environment-agnostic unless the test gives an account and region (as the CDK CLI does for anyone with a profile).
    env: options.env ?? {},
    context: { ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}), ...options.context },
  });
  app.synth();
  const text = readFileSync(join(out.dir, `${stack.artifactId}.template.json`), 'utf8');
  if (cached) {
    // Written whole, then renamed: a file running at the same time reads the old state or the new one.
    writeFileSync(`${cached}.${process.pid}`, JSON.stringify([stack.artifactId, text]));
    renameSync(`${cached}.${process.pid}`, cached);
  }
  return { template: JSON.parse(text) as Synthesized['template'], outdir: out.dir, cleanup: out.cleanup };
}

/** The state machine definitions of a synthesized template, by machine type, with Lambda ARNs left as tokens. */
export function stateMachines(
  template: Synthesized['template'],
): Record<'STANDARD' | 'EXPRESS', { definition: Record<string, unknown>; functionIds: Record<string, string> }> {
  const out: Record<string, { definition: Record<string, unknown>; functionIds: Record<string, string> }> = {};
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::StepFunctions::StateMachine') continue;
    const body = r.Properties.DefinitionString as { 'Fn::Join': [string, Array<string | Record<string, unknown>>] };
    const functionIds: Record<string, string> = {};
    // Lambda ARNs are Fn::GetAtt tokens: put a recognisable placeholder in, remember whose it is.
    const text = body['Fn::Join'][1]
      .map((part) => {
        if (typeof part === 'string') return part;
        const att = part['Fn::GetAtt'] as [string, string] | undefined;
        if (att) {
          const placeholder = `arn:aws:lambda:us-east-1:123456789012:function:${att[0]}`;
          functionIds[placeholder] = att[0];
          return placeholder;
        }
        return 'unresolved';
      })
      .join('');
    out[String(r.Properties.StateMachineType ?? 'STANDARD')] = { definition: JSON.parse(text) as Record<string, unknown>, functionIds };
  }
  return out as ReturnType<typeof stateMachines>;
}
