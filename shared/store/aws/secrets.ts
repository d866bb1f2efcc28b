// The search and social backends' keys in the cloud: one Secrets Manager secret holding a JSON
// object with the names the embedded runtime reads from its environment (`TRAWL_BRAVE_API_KEY`,
// `TRAWL_SERPER_API_KEY`, `APIFY_TOKEN`, `TRAWL_SEARXNG_URL`, …). Read with Powertools Parameters
// (cached per container), never put in a Lambda's environment variables or in a log.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { CrawlConfigError, errorMessage } from '../../errors.js';

/** A container reads the secret again after this long, so a key put in or rotated is used within five minutes. */
const MAX_AGE_SECONDS = 300;

/** A Secrets Manager client for the region (or an endpoint: tests). */
export function secretsClient(endpoint?: string, region = process.env.AWS_REGION ?? 'us-east-1'): SecretsManagerClient {
  return new SecretsManagerClient({ region, endpoint });
}

/** The backends' settings and keys from one secret: a JSON object whose values are strings. */
export class SecretEnv {
  private readonly provider: SecretsProvider;

  constructor(
    private readonly secretId: string,
    client: SecretsManagerClient = secretsClient(),
  ) {
    this.provider = new SecretsProvider({ awsSdkV3Client: client });
  }

  /** The secret's names and values; throws a CrawlConfigError naming the secret and the shape it must have. */
  async read(): Promise<Record<string, string>> {
    let value: unknown;
    try {
      value = await this.provider.get(this.secretId, { maxAge: MAX_AGE_SECONDS, transform: 'json' });
    } catch (err) {
      throw new CrawlConfigError(
        `the secret ${this.secretId} could not be read as JSON (${errorMessage(err)}): put a JSON object in it, such as {"TRAWL_BRAVE_API_KEY": "…", "APIFY_TOKEN": "…"}`,
      );
    }
    if (value === undefined) return {};
    if (!value || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string'))
      throw new CrawlConfigError(`the secret ${this.secretId} must hold a JSON object of strings, such as {"TRAWL_BRAVE_API_KEY": "…", "APIFY_TOKEN": "…"}`);
    return value as Record<string, string>;
  }
}
