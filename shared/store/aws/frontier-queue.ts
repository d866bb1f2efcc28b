// The dispatch queue's settings, without the SQS client: the construct (which never loads the SDK)
// and the emulators read them here.

/**
 * The dispatch queue as the Crawler construct makes it, and as the emulators provision it, so tests
 * meet the template's redrive and visibility (the stack test checks the template against these).
 */
export const FRONTIER_QUEUE = {
  /**
   * Receives before a message goes to the DLQ. A turn that fails is handed back after 5 s, doubling
   * to a minute (`failureBackoffMs`), so one that always fails is dead-lettered in about 6 minutes;
   * a turn handed back for its host's delay is renewed before it counts much (`RENEW_AFTER_RECEIVES`).
   */
  maxReceiveCount: 10,
  /** Six times the fetch worker's default 1-minute timeout: SQS's rule for a Lambda event source. */
  visibilityTimeoutSeconds: 360,
  retentionSeconds: 14 * 86_400,
  /** Turns one fetch worker invocation takes at once (the event source's batch): each at its own host. */
  batchSize: 10,
} as const;
