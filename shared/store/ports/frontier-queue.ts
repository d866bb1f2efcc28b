import type { FrontierRow } from '../records.js';

/** The distributed frontier: one message per URL, one message group (in flight at a time) per host. */
export interface FrontierQueue {
  send(rows: FrontierRow[]): Promise<void>;
  /** Gives a received message back, to be received again after `delayMs` (its host is not ready). */
  handBack(receipt: string, delayMs: number): Promise<void>;
  /** Moves a message that cannot be handled (malformed) to the dead-letter queue with the reason, so it never blocks its group. */
  deadLetter(body: string, reason: string, group: string, id: string): Promise<void>;
}
