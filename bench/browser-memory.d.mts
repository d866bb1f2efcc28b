/** Starts sampling the memory of the processes below this one; `stop()` returns the peak PSS in MiB. */
export function sampleDescendants(): { stop(): number };
