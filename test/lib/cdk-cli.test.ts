// The app synthesized as users run it: the CDK CLI with a region and an account (as anyone with an
// AWS profile has), and in process with and without an environment, cdk-nag's AwsSolutions pack on
// (synthesis fails on any finding, error or warning, that is not acknowledged beside its resource).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/helpers.js';
import { synthApp } from '../../support/synth.js';

const ENV = { account: '123456789012', region: 'eu-west-1' };

test('npx cdk synth with AWS_REGION, CDK_DEFAULT_REGION and CDK_DEFAULT_ACCOUNT set exits 0 and writes the stack for that environment', () => {
  const out = tempDir('trawl-cdk-cli-');
  try {
    const res = spawnSync(join('node_modules', '.bin', 'cdk'), ['synth', '--no-notices', '-q', '-o', out.dir], {
      encoding: 'utf8',
      env: { ...process.env, AWS_REGION: ENV.region, CDK_DEFAULT_REGION: ENV.region, CDK_DEFAULT_ACCOUNT: ENV.account },
      timeout: 600_000,
    });
    assert.equal(res.status, 0, `cdk synth failed:\n${res.stdout}\n${res.stderr}`);
    const manifest = JSON.parse(readFileSync(join(out.dir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { environment?: string }> };
    assert.equal(manifest.artifacts.Trawl?.environment, `aws://${ENV.account}/${ENV.region}`);
    assert.match(readFileSync(join(out.dir, 'Trawl.template.json'), 'utf8'), /arn:aws:states:eu-west-1:123456789012|eu-west-1/);
  } finally {
    out.cleanup();
  }
});

for (const [name, env] of [
  ['no environment', {}],
  ['a region and an account', ENV],
] as const) {
  test(`synthesizes with ${name}, with Bedrock through a cross-region inference profile, with no unacknowledged cdk-nag finding`, () => {
    const synth = synthApp({
      bundle: false,
      env,
      context: { enrichment: '{"provider":"bedrock","chatModel":"eu.anthropic.claude-3-haiku-20240307-v1:0"}', startCrawls: true },
    });
    try {
      assert.ok(Object.keys(synth.template.Resources).length > 40);
    } finally {
      synth.cleanup();
    }
  });
}
