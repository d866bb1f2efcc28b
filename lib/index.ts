// `import { Crawler } from 'trawl/cdk'`: the construct library. Re-exports only.
export { Crawler, type ApiCrawlLimitProps, type ApiKeyApiProps, type ApiProps, type CrawlerProps, type ExtraPageStep, type IamApiProps } from './crawler.js';
export { validateCrawls, loadCrawls, scheduleProblem, CrawlConfigError, type CrawlDefinition } from './crawls-config.js';
export { STAGES, type StageName } from './stages.js';
export { THROTTLING_ERRORS } from './workflows.js';
export { CrawlWebhooks, BUS_EVENTS, type BusEventType, type WebhookProps } from './webhooks.js';
