// Synthesizes the CDK app once per test process (with real esbuild bundling) into a temp dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../../lib/app.js';
import { tempDir } from '../helpers.js';

export interface Synthesized {
  template: Record<string, unknown> & { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  outdir: string;
  cleanup(): void;
}

export function synthApp(options: { bundle?: boolean; crawlsFile?: string; context?: Record<string, unknown> } = {}): Synthesized {
  const out = tempDir('trawl-cdk-');
  const { app, stack } = buildApp({
    outdir: out.dir,
    crawlsFile: options.crawlsFile,
    context: { ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}), ...options.context },
  });
  app.synth();
  const template = JSON.parse(readFileSync(join(out.dir, `${stack.artifactId}.template.json`), 'utf8')) as Synthesized['template'];
  return { template, outdir: out.dir, cleanup: out.cleanup };
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
