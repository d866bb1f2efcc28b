/**
 * How long the Render Lambda waits for its host's claim before it raises HostBusy for Step
 * Functions to retry. The construct counts it once a retried attempt in the page workflow's
 * Express budget, so it lives apart from the worker (the construct imports no crawl code).
 */
export const RENDER_HOST_WAIT_MS = 5_000;
