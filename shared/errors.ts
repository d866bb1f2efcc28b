/**
 * Every error trawl raises, and what happens next when one reaches the crawl. The step is decided
 * here, from the error's class, in one place (`nextStep`); callers act on the step, never on
 * messages. User-facing errors say what to do.
 */

/** What the crawl does with an error: retry the URL, fail the URL, park its host, or stop the run. */
export type NextStep = 'retry' | 'fail-url' | 'park-host' | 'stop-run';

/** The root of trawl's errors. */
export class TrawlError extends Error {
  /** What happens next (see `nextStep`). */
  readonly next: NextStep;
  constructor(message: string, next: NextStep, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TrawlError';
    this.next = next;
  }
}

/**
 * What happens next for any error: a trawl error says so itself; anything else is a bug or a
 * broken store, which stops the run (resumable) rather than corrupting it.
 */
export function nextStep(err: unknown): NextStep {
  return err instanceof TrawlError ? err.next : 'stop-run';
}

/** A transient failure (timeout, reset, 5xx): the URL goes back to the frontier. */
export class RetryableFetchError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'retry', options);
    this.name = 'RetryableFetchError';
  }
}

/** A permanent failure for this URL (bad scheme, unknown host): recorded, never retried. */
export class NonRetryableFetchError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'fail-url', options);
    this.name = 'NonRetryableFetchError';
  }
}

/** The address guard refused to connect: the host resolves to a private or metadata address, so it is parked. */
export class AddressRefusedError extends TrawlError {
  /** `metadata`: a cloud metadata or credential endpoint, refused whatever the flags say. */
  readonly reason: 'private' | 'metadata';
  constructor(message: string, options?: { reason?: 'private' | 'metadata' }) {
    super(message, 'park-host');
    this.name = 'AddressRefusedError';
    this.reason = options?.reason ?? 'private';
  }
}

/** Why a render produced no DOM. */
export type RenderFailure = 'browser-missing' | 'launch' | 'crash' | 'hang' | 'navigation' | 'closed';

/** A render that did not produce a DOM: the page is extracted as it was served and the crawl goes on. */
export class RenderError extends TrawlError {
  constructor(
    readonly failure: RenderFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, 'fail-url', options);
    this.name = 'RenderError';
  }
}

/** Where processing a fetched page failed: its text's extraction, a PDF, a sitemap, a feed, its render, or the step as a whole. */
export type ProcessingStage = 'extract' | 'pdf' | 'sitemap' | 'feed' | 'render' | 'process';

/** Processing one fetched page failed (extraction, PDF text, a worker crash or timeout): that URL fails, the crawl goes on. */
export class PageProcessingError extends TrawlError {
  /** Where it failed. */
  readonly stage: ProcessingStage;
  constructor(stage: ProcessingStage, cause: unknown) {
    super(`${stage}: ${errorMessage(cause)}`, 'fail-url', { cause });
    this.name = 'PageProcessingError';
    this.stage = stage;
  }
}

/** The archive has no interaction at all with this URL (replay). */
export class NeverFetchedError extends TrawlError {
  constructor(url: string) {
    super(`${url} was never fetched: it is not in the archive`, 'fail-url');
    this.name = 'NeverFetchedError';
  }
}

/** The URL was fetched, but no response was archived (network error, robots refusal, …). */
export class FetchedAndFailedError extends TrawlError {
  constructor(
    url: string,
    readonly record: { error?: string; status?: number },
  ) {
    super(`${url} was fetched but failed: ${record.error ?? `HTTP ${record.status ?? 'no response'}`}`, 'fail-url');
    this.name = 'FetchedAndFailedError';
  }
}

/** A frontier message of a run that is not in the table: the message is dropped. */
export class RunNotFoundError extends TrawlError {
  constructor(runId: number) {
    super(`run ${runId} is not in the table: the message belongs to a run that was never created or was deleted; it is dropped`, 'fail-url');
    this.name = 'RunNotFoundError';
  }
}

/** A frontier message that is not a frontier row: it is dead-lettered with the reason, never retried. */
export class MalformedMessageError extends TrawlError {
  constructor(reason: string) {
    super(`malformed frontier message: ${reason}`, 'fail-url');
    this.name = 'MalformedMessageError';
  }
}

/** A frontier message whose host is not ready: it goes back to the queue (a batch item failure) to be received later. */
export class MessageHandedBackError extends TrawlError {
  constructor(
    readonly delayMs: number,
    readonly outcome: string,
  ) {
    super(`handed back for ${delayMs} ms (${outcome})`, 'retry');
    this.name = 'MessageHandedBackError';
  }
}

/** Bad input from the user (flag, option, seed, data directory): printed as one line, exit code 2. */
export class UsageError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'stop-run', options);
    this.name = 'UsageError';
  }
}

/** The statuses a refused API request answers with. */
export type RefusedStatus = 400 | 403 | 404 | 408 | 413 | 415 | 429 | 502;

/**
 * An API request that cannot be served as asked (a Firecrawl request, an upload, a page not in
 * the archive under lockdown): answered with `status` in the caller's error shape, saying why.
 */
export class RequestRefusedError extends UsageError {
  constructor(
    message: string,
    readonly status: RefusedStatus = 400,
  ) {
    super(message);
    this.name = 'RequestRefusedError';
  }
}

/** A service an answer needs (the chat model) failed: the API answers 502. */
export class UpstreamError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'fail-url', options);
    this.name = 'UpstreamError';
  }
}

/** A server's job queue is full: the caller tries again once a job has ended (HTTP 429). */
export class JobQueueFullError extends TrawlError {
  constructor(message: string) {
    super(message, 'stop-run');
    this.name = 'JobQueueFullError';
  }
}

/** A caller asked for what belongs to another (another caller's crawl to stop): the API answers 403. */
export class ForbiddenError extends TrawlError {
  constructor(message: string) {
    super(message, 'stop-run');
    this.name = 'ForbiddenError';
  }
}

/** The data directory cannot be used (unwritable, from another schema version, damaged). */
export class DataDirError extends UsageError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataDirError';
  }
}

/** Another trawl process writes to the data directory: one writer at a time. */
export class DataDirLockedError extends DataDirError {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirLockedError';
  }
}

/** A crawl definition (crawls.json, construct props) that cannot be deployed: synthesis stops with it. */
export class CrawlConfigError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'CrawlConfigError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * How a model call failed, which decides what happens next: `throttled` and `unavailable` are
 * retried with back-off; `rejected` (bad request, no access, unknown model) and `malformed`
 * (output that fails validation) are not: the page goes to the dead-letter list.
 */
export type ProviderFailure = 'throttled' | 'unavailable' | 'rejected' | 'malformed';

/** A model call that failed; the page's enrichment fails, the run goes on. */
export class ProviderError extends TrawlError {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, 'fail-url', options);
    this.name = 'ProviderError';
  }

  get retryable(): boolean {
    return this.failure === 'throttled' || this.failure === 'unavailable';
  }
}

/** An API answered with an error, or kept limiting past what we wait. */
export class ApiError extends TrawlError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message, 'fail-url');
    this.name = 'ApiError';
  }
}

/** Where a page's enrichment failed. */
export type EnrichStage = 'summary' | 'tags' | 'embedding' | 'index';

/** A step of Summarize/Index failed: which one, and why. */
export class EnrichStepError extends TrawlError {
  constructor(
    readonly stage: EnrichStage,
    readonly error: unknown,
  ) {
    // One page's enrichment failed: it goes to the dead-letter list and the run goes on.
    super(`${stage}: ${errorMessage(error)}`, 'fail-url', { cause: error });
    this.name = 'EnrichStepError';
  }
}

/** The model throttled past the in-process retries: Step Functions retries the step with back-off (`ModelThrottled` in its Retry). */
export class ModelThrottledError extends TrawlError {
  constructor(message: string) {
    // Step Functions matches the name `ModelThrottled` in the step's Retry.
    super(message, 'retry');
    this.name = 'ModelThrottled';
  }
}

/** The host was not free in time: Step Functions retries the step (`HostBusy` in its Retry). */
export class HostBusyError extends RetryableFetchError {
  constructor(host: string, waitedMs: number) {
    super(`host ${host} stayed busy for ${waitedMs} ms: the render is retried`);
    this.name = 'HostBusy';
  }
}

/** Error codes of a write the disk could not take: full, over quota, past a file size limit, or SQLite's own. */
const NO_ROOM_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE']);

/** The code of a write that found no room, looking through causes and grouped errors; undefined for any other error. */
export function noRoomCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NO_ROOM_CODES.has(code)) return code;
  if (err instanceof AggregateError) for (const e of err.errors) if (noRoomCode(e, depth + 1)) return noRoomCode(e, depth + 1);
  return noRoomCode((err as { cause?: unknown }).cause, depth + 1);
}

/** The data directory's disk took no more writes: the run stops, interrupted, with what it stored kept. */
export class DiskFullError extends TrawlError {
  readonly code: string;
  constructor(dataDir: string, cause: unknown) {
    const code = noRoomCode(cause) ?? 'ENOSPC';
    super(
      `the disk holding ${dataDir} is full (${code}: ${cause instanceof Error ? cause.message : String(cause)}); the run is interrupted and what it stored is kept: free some space, then run \`trawl crawl --resume --data ${dataDir}\` to go on where it stopped`,
      'stop-run',
      { cause },
    );
    this.name = 'DiskFullError';
    this.code = code;
  }
}

/** Whether loading a module failed because it is not installed (require's or import's code): an optional dependency left out. */
export function isModuleMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
}
