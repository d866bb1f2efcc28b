import { Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { ENV } from '../shared/config/lambda-environment.js';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { CrawlConfigError } from '../shared/errors.js';
import { routeTarget } from '../shared/targets/route.js';
import type { CrawlDefinition } from './crawls-config.js';

/** Environment names that hold credentials: refused on the function, they belong in the secret. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/i;

/** Whether any crawl starts from a search query or a social account. */
export function hasTargets(crawls: CrawlDefinition[]): boolean {
  return crawls.some((c) => c.seeds.some((s) => routeTarget(s).kind !== 'url'));
}

/** Refuses a credential in the Discover function's environment, naming it and where it goes. */
export function checkDiscoveryEnvironment(where: string, environment: Record<string, string> | undefined): void {
  for (const name of Object.keys(environment ?? {})) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new CrawlConfigError(`${where}: discovery.environment name "${name}" is not an environment variable name`);
    if (SECRET_NAME.test(name))
      throw new CrawlConfigError(
        `${where}: discovery.environment sets ${name}, which holds a credential: put it in the discovery secret's JSON instead (environment variables show in the console and in the template)`,
      );
  }
}

export interface DiscoveryWiring {
  fn: lambda.Function;
  crawls: CrawlDefinition[];
  existingSecretObj?: secretsmanager.ISecret;
  environment?: Record<string, string>;
  removalPolicy: RemovalPolicy;
}

/**
 * The Discover function's access to the backends: their non-secret settings in its environment,
 * and read access to the secret of keys (a new one when a crawl needs it and none is given).
 */
export class CrawlDiscovery extends Construct {
  /** The secret the Discover function reads (absent when no crawl has a search or social seed and none was given). */
  readonly secret?: secretsmanager.ISecret;

  constructor(scope: Construct, id: string, props: DiscoveryWiring) {
    super(scope, id);
    for (const [name, value] of Object.entries(props.environment ?? {})) props.fn.addEnvironment(name, value);
    this.secret = props.existingSecretObj ?? (hasTargets(props.crawls) ? this.newSecret(props.removalPolicy) : undefined);
    if (!this.secret) return;
    this.secret.grantRead(props.fn);
    props.fn.addEnvironment(ENV.targetsSecretArn, this.secret.secretArn);
  }

  private newSecret(removalPolicy: RemovalPolicy): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, 'Keys', {
      description: 'trawl: keys of the search and social backends, a JSON object such as {"TRAWL_BRAVE_API_KEY": "…", "APIFY_TOKEN": "…"}',
      // No key is in the template: the secret starts as an empty object and is filled after deploy.
      secretObjectValue: {},
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The secret holds third-party API keys (Brave, Serper, Apify), which only their providers can rotate; Secrets Manager has no rotation for them.',
    });
    return secret;
  }
}
