// The CDK app: one user of the Crawler construct, with the crawls of crawls.json.
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { loadCrawls } from './crawls-config.js';
import { Crawler } from './crawler.js';
import { ROOT } from './stages.js';

export function buildApp(options: { crawlsFile?: string; outdir?: string; context?: Record<string, unknown> } = {}): {
  app: App;
  stack: Stack;
  crawler: Crawler;
} {
  const app = new App({ outdir: options.outdir, context: options.context });
  const stack = new Stack(app, app.node.tryGetContext('stackName') ?? 'Trawl', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'trawl: a polite web crawler (archive, link graph, clean content)',
  });
  const crawler = new Crawler(stack, 'Crawler', { crawls: loadCrawls(options.crawlsFile ?? join(ROOT, 'crawls.json')) });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, crawler };
}

if (import.meta.url === `file://${process.argv[1]}`) buildApp().app.synth();
