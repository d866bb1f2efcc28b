// The frontier queue's settings, without the SQS client: the construct (which never loads the SDK)
// and the emulators read them here.

/**
 * The frontier queue as the Crawler construct makes it, and as the emulators provision it, so tests
 * meet the template's redrive and visibility (the stack test checks the template against these).
 */
export const FRONTIER_QUEUE = {
  /** Receives before a message goes to the DLQ; a busy host's hand-backs count as receives. */
  maxReceiveCount: 50,
  /** Six times the fetch worker's default 2-minute timeout: SQS's rule for a Lambda event source. */
  visibilityTimeoutSeconds: 720,
  retentionSeconds: 14 * 86_400,
} as const;
