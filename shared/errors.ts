/**
 * Error classes say what happens next: the URL is retried, skipped, the host is parked,
 * or the whole run stops. User-facing errors say what to do.
 */
export type Disposition = 'retry' | 'skip' | 'host' | 'run';

export class TrawlError extends Error {
  readonly disposition: Disposition;
  constructor(message: string, disposition: Disposition, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TrawlError';
    this.disposition = disposition;
  }
}

/** A transient failure (timeout, reset, 5xx): the URL goes back to the frontier. */
export class RetryableFetchError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'retry', options);
    this.name = 'RetryableFetchError';
  }
}

/** A permanent failure for this URL (bad scheme, refused address): recorded, never retried. */
export class NonRetryableFetchError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'skip', options);
    this.name = 'NonRetryableFetchError';
  }
}

/** The address guard refused to connect: the target resolves to a private or metadata address. */
export class AddressRefusedError extends TrawlError {
  constructor(message: string) {
    super(message, 'skip');
    this.name = 'AddressRefusedError';
  }
}

/** Processing one fetched page failed (extraction, PDF text, a worker crash or timeout): that URL fails, the crawl goes on. */
export class PageProcessingError extends TrawlError {
  /** Where it failed: `extract`, `pdf`, `sitemap`, `feed`, … */
  readonly stage: string;
  constructor(stage: string, cause: unknown) {
    super(`${stage}: ${errorMessage(cause)}`, 'skip', { cause });
    this.name = 'PageProcessingError';
    this.stage = stage;
  }
}

/** Bad input from the user (flag, seed, data directory): printed as one line, exit code 2. */
export class UsageError extends TrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'run', options);
    this.name = 'UsageError';
  }
}

/** The data directory cannot be used (unwritable, from another schema version). */
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

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
