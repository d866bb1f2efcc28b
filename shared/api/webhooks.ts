import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { AddressGuard, type Resolver } from '../fetch/address-guard.js';

/** The events a crawl sends: started, stored pages (batched), changes its monitor tells (batched), finished, failed. */
export type WebhookEvent = 'crawl.started' | 'page.stored' | 'page.changed' | 'crawl.finished' | 'crawl.failed';

/** One delivery and how it went (the last attempt's status, or why it failed). */
export interface Delivery {
  id: string;
  url: string;
  event: WebhookEvent;
  /** The crawl job the event is about. */
  job?: string;
  /** When its last attempt ended (ms since the epoch). */
  at: number;
  attempts: number;
  ok: boolean;
  status?: number;
  error?: string;
}

export interface WebhookOptions {
  /** Receivers' URLs (`--webhook`, repeatable). */
  urls: readonly string[];
  /** The signing secret, `whsec_<base64>` (TRAWL_WEBHOOK_SECRET); without one, deliveries are unsigned. */
  secret?: string;
  /** Webhook targets pass the address guard as any fetch does. */
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
  /** Attempts per delivery, the first included. @default 5 */
  attempts?: number;
  /** The first retry's wait; doubled each time. @default 1000 */
  backoffMs?: number;
  timeoutMs?: number;
  /** Told of a delivery after each attempt (the server records it: `trawl webhooks`). */
  onDelivery?: (delivery: Delivery) => void;
}

/**
 * Webhooks signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: HMAC-SHA256 over id, timestamp and body), sent to every receiver, retried
 * with exponential back-off on errors and non-2xx answers; every delivery is kept for `deliveries()`.
 */
export class WebhookSender {
  private readonly signer: Webhook | undefined;
  private readonly guard: AddressGuard;
  private readonly sent: Delivery[] = [];
  private pending = new Set<Promise<void>>();
  /** Set by `close()`: no more retries; the back-off waits end at once. */
  private closing = false;
  private readonly waits = new Set<() => void>();

  constructor(private readonly options: WebhookOptions) {
    this.signer = options.secret ? new Webhook(options.secret) : undefined;
    this.guard = new AddressGuard({ allowPrivateNetwork: options.allowPrivateNetwork, resolver: options.resolver });
  }

  /** Sends an event to every receiver (in the background; `flush()` waits for it). */
  send(event: WebhookEvent, data: { id?: string; [field: string]: unknown }): void {
    if (this.options.urls.length === 0) return;
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({ type: event, timestamp: new Date().toISOString(), data });
    for (const url of this.options.urls) {
      const work = this.deliver(url, event, id, body, data.id).finally(() => this.pending.delete(work));
      this.pending.add(work);
    }
  }

  /** Every delivery so far; `failed` only those that never got a 2xx. */
  deliveries(failed = false): Delivery[] {
    return this.sent.filter((d) => !failed || !d.ok);
  }

  async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * Stops retrying (a server shutting down does not wait out back-offs): attempts under way end,
   * deliveries waiting for a retry stay as their last attempt left them (recorded, `ok: false`).
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.waits) wake();
    await this.flush();
  }

  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waits.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waits.add(wake);
    });
  }

  private async deliver(url: string, event: WebhookEvent, id: string, body: string, job: string | undefined): Promise<void> {
    const delivery: Delivery = { id, url, event, ...(job ? { job } : {}), at: Date.now(), attempts: 0, ok: false };
    this.sent.push(delivery);
    const attempts = this.options.attempts ?? 5;
    const told = () => {
      delivery.at = Date.now();
      try {
        this.options.onDelivery?.({ ...delivery });
      } catch {
        // Recording a delivery never stops it.
      }
    };
    for (let i = 0; i < attempts && !this.closing; i++) {
      if (i > 0) await this.backoff((this.options.backoffMs ?? 1000) * 2 ** (i - 1));
      if (this.closing) break;
      delivery.attempts++;
      try {
        const target = new URL(url);
        this.guard.checkHostLiteral(target.hostname);
        const headers: Record<string, string> = { 'content-type': 'application/json', 'webhook-id': id };
        const at = new Date();
        headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
        if (this.signer) headers['webhook-signature'] = this.signer.sign(id, at, body);
        delivery.status = await this.post(target, headers, body);
        delivery.error = undefined;
        if (delivery.status >= 200 && delivery.status < 300) {
          delivery.ok = true;
          return told();
        }
      } catch (err) {
        delivery.error = err instanceof Error ? err.message : String(err);
        // A receiver the guard refuses will not become reachable by retrying.
        if (/refused/.test(delivery.error)) return told();
      }
      told();
    }
  }

  private post(target: URL, headers: Record<string, string>, body: string): Promise<number> {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(target, { method: 'POST', headers, lookup: this.guard.lookup as never, timeout: this.options.timeoutMs ?? 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy(new Error('the receiver did not answer in time')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
