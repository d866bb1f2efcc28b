import type { HostTurn } from './host-queues.js';

/**
 * The dispatch queue: turns at hosts (see `HostQueues`), one message group per host, so a host's
 * turns of every run are handed out one at a time.
 */
export interface FrontierQueue {
  /** Sends turns; a turn is sent once per `copy` (a renewed turn is a new copy of it). */
  sendTurns(turns: Array<HostTurn & { copy?: string }>): Promise<void>;
  /** Gives a received message back, to be received again after `delayMs` (its host is not ready). */
  handBack(receipt: string, delayMs: number): Promise<void>;
  /** Moves a message that cannot be handled (malformed) to the dead-letter queue with the reason, so it never blocks its group. */
  deadLetter(body: string, reason: string, group: string, id: string): Promise<void>;
  /** Turns in the dead-letter queue (up to `limit`, hidden a while from other readers), each with its receipt. */
  deadTurns(limit: number): Promise<Array<{ turn?: HostTurn; receipt: string }>>;
  /** Settles a dead-lettered message read with `deadTurns`: deleted, or left for another reader at once. */
  settleDead(receipt: string, how: 'delete' | 'leave'): Promise<void>;
}
