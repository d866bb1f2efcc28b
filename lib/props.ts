import { Token } from 'aws-cdk-lib';
import { CrawlConfigError } from '../shared/errors.js';
import type { CrawlerProps } from './crawler.js';
import { checkEnrichmentProps } from './search-index.js';
import { STAGES } from './stages.js';
import { checkDiscoveryEnvironment } from './discovery.js';

/** Names the built-in page steps use; a user's step may not take one. */
const RESERVED_STEPS = new Set(['Extract', 'RecordFailure', 'PageFailed', 'PageDone', 'NeedsRender', 'Render', 'ExtractRendered', 'Summarize', 'Index']);

function inRange(where: string, prop: string, value: number | undefined, min: number, max: number, unit = ''): void {
  if (value === undefined || Token.isUnresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CrawlConfigError(`${where}: ${prop} is ${value}${unit}; it must be a whole number from ${min} to ${max}${unit}`);
  }
}

/**
 * Checks the construct's props: a value out of range fails synthesis with the prop and the
 * allowed range (nothing is clamped silently), and escape hatches that exclude each other are
 * not given together.
 */
export function checkCrawlerProps(id: string, props: CrawlerProps): void {
  const where = `Crawler "${id}"`;
  for (const [stage, mb] of Object.entries(props.memoryMb ?? {})) {
    if (!(STAGES as readonly string[]).includes(stage))
      throw new CrawlConfigError(`${where}: memoryMb names an unknown stage "${stage}"; the stages are ${STAGES.join(', ')}`);
    inRange(where, `memoryMb["${stage}"]`, mb, 128, 10_240, ' MB');
  }
  inRange(where, 'maxFetchConcurrency', props.maxFetchConcurrency, 2, 1000);
  inRange(where, 'pollSeconds', props.pollSeconds, 5, 3600, ' s');
  inRange(where, 'rawInfrequentAccessDays', props.rawInfrequentAccessDays, 30, 36_500, ' days');
  inRange(where, 'rawRetentionDays', props.rawRetentionDays, 1, 36_500, ' days');
  inRange(where, 'frontierRetentionDays', props.frontierRetentionDays, 1, 3650, ' days');
  const ia = props.rawInfrequentAccessDays ?? 30;
  if (props.rawRetentionDays !== undefined && props.rawRetentionDays <= ia) {
    throw new CrawlConfigError(
      `${where}: rawRetentionDays (${props.rawRetentionDays}) must be more than rawInfrequentAccessDays (${ia}): raw bodies move to Infrequent Access before they expire`,
    );
  }
  if (props.existingTableObj && props.tableProps)
    throw new CrawlConfigError(`${where}: give existingTableObj or tableProps, not both (tableProps shape a table trawl creates)`);
  if (props.existingBucketObj && props.bucketProps)
    throw new CrawlConfigError(`${where}: give existingBucketObj or bucketProps, not both (bucketProps shape a bucket trawl creates)`);
  if (props.enrichment) checkEnrichmentProps(where, props.enrichment);
  checkDiscoveryEnvironment(where, props.discovery?.environment);
  if (props.api) {
    const auth = props.api.auth ?? 'iam';
    if (auth !== 'iam' && auth !== 'apiKey') throw new CrawlConfigError(`${where}: api.auth is "${auth}"; write "iam" or "apiKey"`);
    if (auth === 'apiKey' && !/^[0-9a-fA-F]{64}$/.test(props.api.apiKeySha256 ?? ''))
      throw new CrawlConfigError(
        `${where}: api.auth "apiKey" needs api.apiKeySha256, the SHA-256 of the key in hex (64 characters: printf %s "$KEY" | sha256sum)`,
      );
    if (auth === 'iam' && props.api.apiKeySha256 !== undefined) throw new CrawlConfigError(`${where}: api.apiKeySha256 is only used with api.auth "apiKey"`);
    if (props.api.apiKeyHeader !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(props.api.apiKeyHeader))
      throw new CrawlConfigError(`${where}: api.apiKeyHeader "${props.api.apiKeyHeader}" is not a header name (letters, digits, "-")`);
  }
  const names = new Set<string>();
  for (const step of props.extraPageSteps ?? []) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(step.name))
      throw new CrawlConfigError(`${where}: extraPageSteps name "${step.name}" must be 1–64 letters, digits, "-" or "_"`);
    if (RESERVED_STEPS.has(step.name) || names.has(step.name))
      throw new CrawlConfigError(`${where}: extraPageSteps name "${step.name}" is taken; names must be unique and not ${[...RESERVED_STEPS].join(', ')}`);
    names.add(step.name);
    inRange(where, `extraPageSteps["${step.name}"].timeout`, step.timeout?.toSeconds(), 1, 300, ' s');
  }
}
