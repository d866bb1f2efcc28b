// The cloud's webhooks: each receiver an EventBridge API destination with a rule on the crawler's
// bus, so the same events downstream services subscribe to reach an HTTPS endpoint, retried by
// EventBridge and dead-lettered to a queue when the receiver keeps failing.
import { Duration, SecretValue, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue } from './dead-letters.js';
import { CrawlConfigError } from '../shared/errors.js';
import { CRAWL_EVENTS, type CrawlEventType } from '../shared/ports/event-sink.js';

/** The events a webhook may ask for: those the construct puts on its bus. */
export const BUS_EVENTS = CRAWL_EVENTS;
export type BusEventType = CrawlEventType;

/** One receiver of the crawler's events. */
export interface WebhookProps {
  /** The receiver: an `https://` URL (EventBridge API destinations call HTTPS only). */
  readonly url: string;
  /**
   * Which events it gets.
   * @default every event on the bus (`trawl.crawl.started`, `trawl.crawl.finished`, `trawl.crawl.failed`, `trawl.page.changed`)
   */
  readonly events?: readonly BusEventType[];
  /**
   * A secret whose value each delivery carries in `header`, for the receiver to check (API
   * destinations cannot sign a body; the key plays the part of `trawl serve`'s HMAC signature).
   * @default a new secret of 32 random characters (output `Webhook<n>SecretArn`)
   */
  readonly secret?: secretsmanager.ISecret;
  /**
   * The header that carries the secret.
   * @default 'x-trawl-webhook-key'
   */
  readonly header?: string;
  /**
   * Deliveries a second at most.
   * @default 10
   */
  readonly rateLimitPerSecond?: number;
}

/** Checks the webhooks props at synth: HTTPS, known events, a header name, a rate in range. */
export function checkWebhooks(where: string, hooks: readonly WebhookProps[] | undefined): void {
  for (const [i, hook] of (hooks ?? []).entries()) {
    const at = `${where}: webhooks[${i}]`;
    let url: URL | undefined;
    try {
      url = new URL(hook.url);
    } catch {
      // reported below
    }
    if (url?.protocol !== 'https:')
      throw new CrawlConfigError(`${at}.url "${hook.url}" must be an https:// URL (EventBridge API destinations call HTTPS only)`);
    for (const e of hook.events ?? [])
      if (!(BUS_EVENTS as readonly string[]).includes(e))
        throw new CrawlConfigError(`${at}.events: "${e}" is not an event of the bus; known: ${BUS_EVENTS.join(', ')}`);
    if (hook.events?.length === 0) throw new CrawlConfigError(`${at}.events is empty: leave it out for every event, or name some`);
    if (hook.header !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(hook.header))
      throw new CrawlConfigError(`${at}.header "${hook.header}" is not a header name (letters, digits, "-")`);
    const rate = hook.rateLimitPerSecond;
    if (rate !== undefined && (!Number.isInteger(rate) || rate < 1 || rate > 300))
      throw new CrawlConfigError(`${at}.rateLimitPerSecond is ${rate}; allowed: a whole number from 1 to 300`);
  }
}

/** The receivers as API destinations, each behind a rule on the bus; failed deliveries go to `deadLetters`. */
export class CrawlWebhooks extends Construct {
  /** Deliveries EventBridge gave up on (after 24 hours of retries), with the event. */
  readonly deadLetters: sqs.Queue;
  /** Each receiver's secret, in the order of the props. */
  readonly secrets: secretsmanager.ISecret[] = [];

  constructor(scope: Construct, id: string, props: { bus: events.IEventBus; hooks: readonly WebhookProps[]; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', { of: 'the webhook rules', removalPolicy: props.removalPolicy });
    props.hooks.forEach((hook, i) => {
      const secret =
        hook.secret ??
        new secretsmanager.Secret(this, `Secret${i}`, {
          description: `trawl webhook ${i}: the key each delivery to ${hook.url} carries`,
          generateSecretString: { passwordLength: 32, excludePunctuation: true },
          removalPolicy: props.removalPolicy,
        });
      if (!hook.secret)
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason: 'The key is shared with the receiver, which checks it: rotating it is agreed with the receiver, not done by Secrets Manager alone.',
        });
      this.secrets.push(secret);
      const connection = new events.Connection(this, `Connection${i}`, {
        description: `trawl webhook ${i}`,
        authorization: events.Authorization.apiKey(hook.header ?? 'x-trawl-webhook-key', SecretValue.secretsManager(secret.secretArn)),
      });
      const destination = new events.ApiDestination(this, `Destination${i}`, {
        description: `trawl webhook ${i}: ${hook.url}`,
        connection,
        endpoint: hook.url,
        httpMethod: events.HttpMethod.POST,
        rateLimitPerSecond: hook.rateLimitPerSecond ?? 10,
      });
      new events.Rule(this, `Rule${i}`, {
        description: `trawl events to ${hook.url}`,
        eventBus: props.bus,
        eventPattern: { source: ['trawl'], detailType: [...(hook.events ?? BUS_EVENTS)] },
        targets: [
          new targets.ApiDestination(destination, {
            deadLetterQueue: this.deadLetters,
            retryAttempts: 185,
            maxEventAge: Duration.hours(24),
          }),
        ],
      });
    });
  }
}
