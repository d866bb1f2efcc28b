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
  /** The server's event, or the event of a crawl's own receiver (Firecrawl's `crawl.page`, …). */
  event: WebhookEvent | `crawl.${string}`;
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
  /** The whole of one attempt, from connecting to the answer's last byte: a receiver that trickles is cut off. @default 10000 */
  timeoutMs?: number;
  /** Attempts under way to one receiver at once, at most (a slow receiver holds no more sockets). @default 2 */
  connectionsPerReceiver?: number;
  /** Deliveries waiting for one receiver, at most; past it a new one is recorded as failed at once. @default 1000 */
  queuePerReceiver?: number;
  /** How long `close()` lets the attempts already under way be answered before it cuts them off. @default 2000 */
  closeGraceMs?: number;
  /** Told of a delivery after each attempt (the server records it: `trawl webhooks`). */
  onDelivery?: (delivery: Delivery) => void;
}

/** A receiver's share of the sender: its attempts under way and the deliveries waiting for a turn. */
interface Lane {
  active: number;
  waiting: Array<() => void>;
}

/** Why a delivery ended undelivered when the server stopped. */
const SHUT_DOWN = 'not delivered: the server stopped before the receiver answered';

/**
 * Checks webhook settings where they are given: receivers' URLs must be http(s), and a signing
 * secret must be `whsec_` and the base64 of at least 24 bytes (the Standard Webhooks form).
 * Throws an Error that names the problem and what to write.
 */
export function checkWebhookSettings(urls: readonly string[], secret: string | undefined): void {
  for (const url of urls) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`webhook ${JSON.stringify(url)} is not a URL: give an http(s) URL such as https://example.com/hooks/trawl`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`webhook ${url} is not http(s): receivers are reached over HTTP`);
  }
  if (secret === undefined) return;
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!m || Buffer.from(m[1]!, 'base64').length < MIN_SECRET_BYTES)
    throw new Error(
      `TRAWL_WEBHOOK_SECRET must be whsec_ and the base64 of at least ${MIN_SECRET_BYTES} random bytes: make one with echo whsec_$(openssl rand -base64 32)`,
    );
}

/** The least random bytes a signing secret holds (192 bits). */
export const MIN_SECRET_BYTES = 24;

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
  private readonly lanes = new Map<string, Lane>();
  /** Attempts under way: a close ends them at once. */
  private readonly attemptsUnderWay = new Set<(why: Error) => void>();

  constructor(private readonly options: WebhookOptions) {
    checkWebhookSettings(options.urls, options.secret);
    this.signer = options.secret ? new Webhook(options.secret) : undefined;
    this.guard = new AddressGuard({ allowPrivateNetwork: options.allowPrivateNetwork, resolver: options.resolver });
  }

  /** Sends an event to every receiver (in the background; `flush()` waits for it). */
  send(event: WebhookEvent, data: { id?: string; [field: string]: unknown }): void {
    if (this.options.urls.length === 0) return;
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({ type: event, timestamp: new Date().toISOString(), data });
    for (const url of this.options.urls) {
      const work = this.deliver(url, event, id, body, { job: data.id }).finally(() => this.pending.delete(work));
      this.pending.add(work);
    }
  }

  /**
   * Sends a body of the caller's to one receiver of its own (a crawl's `webhook`), with its headers,
   * signed, guarded and retried as every delivery.
   */
  sendTo(url: string, event: `crawl.${string}`, body: string, options: { headers?: Record<string, string>; job?: string } = {}): void {
    checkWebhookSettings([url], undefined);
    const work = this.deliver(url, event, `msg_${randomUUID()}`, body, options).finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Every delivery so far; `failed` only those that never got a 2xx. */
  deliveries(failed = false): Delivery[] {
    return this.sent.filter((d) => !failed || !d.ok);
  }

  async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * Stops: no new attempt starts, and no retry; the attempts already under way get `closeGraceMs`
   * to be answered (a crawl's last events, sent as it ended, still reach a receiver that answers),
   * then are cut off. Every delivery not made is recorded as failed (`ok: false`, with why).
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.waits) wake();
    for (const lane of this.lanes.values()) for (const go of lane.waiting.splice(0)) go();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.closeGraceMs ?? 2000)));
    await Promise.race([this.flush(), graceOver]);
    clearTimeout(timer);
    for (const end of this.attemptsUnderWay) end(new Error(SHUT_DOWN));
    await this.flush();
  }

  /** Waits for a turn at `url`'s receiver; resolves false when the receiver's queue is full. */
  private async turn(url: string): Promise<boolean> {
    let lane = this.lanes.get(url);
    if (!lane) this.lanes.set(url, (lane = { active: 0, waiting: [] }));
    if (lane.active >= (this.options.connectionsPerReceiver ?? 2)) {
      if (lane.waiting.length >= (this.options.queuePerReceiver ?? 1000)) return false;
      await new Promise<void>((go) => lane.waiting.push(go));
    }
    lane.active++;
    return true;
  }

  private release(url: string): void {
    const lane = this.lanes.get(url)!;
    lane.active--;
    lane.waiting.shift()?.();
  }

  private backoff(ms: number): Promise<void> {
    if (this.closing) return Promise.resolve();
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

  private async deliver(
    url: string,
    event: Delivery['event'],
    id: string,
    body: string,
    { job, headers: extraHeaders = {} }: { job?: string; headers?: Record<string, string> },
  ): Promise<void> {
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
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await this.backoff((this.options.backoffMs ?? 1000) * 2 ** (i - 1));
      if (this.closing) {
        delivery.error = SHUT_DOWN;
        return told();
      }
      if (!(await this.turn(url))) {
        delivery.error = `not delivered: ${this.options.queuePerReceiver ?? 1000} deliveries already wait for this receiver`;
        return told();
      }
      if (this.closing) {
        this.release(url);
        delivery.error = SHUT_DOWN;
        return told();
      }
      delivery.attempts++;
      try {
        const target = new URL(url);
        this.guard.checkHostLiteral(target.hostname);
        // The receiver's own headers first: the signature's and the body's type are the sender's.
        const headers: Record<string, string> = { ...extraHeaders, 'content-type': 'application/json', 'webhook-id': id };
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
      } finally {
        this.release(url);
      }
      told();
    }
  }

  /** One attempt: the answer's status, within the whole attempt's deadline (a trickling answer is cut off too). */
  private post(target: URL, headers: Record<string, string>, body: string): Promise<number> {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const deadlineMs = this.options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const req = send(target, { method: 'POST', headers, lookup: this.guard.lookup as never }, (res) => {
        res.resume();
        res.on('end', () => finish(undefined, res.statusCode ?? 0));
        res.on('error', (err) => (failure ??= err));
      });
      let failure: Error | undefined;
      const end = (why: Error) => req.destroy(why);
      const timer = setTimeout(() => end(new Error(`the receiver did not answer within ${deadlineMs} ms`)), deadlineMs);
      this.attemptsUnderWay.add(end);
      let settled = false;
      const finish = (err: Error | undefined, status = 0) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.attemptsUnderWay.delete(end);
        if (err) reject(err);
        else resolve(status);
      };
      // A failed attempt ends once its socket is closed, not when it is told to close: its slot is free then.
      req.on('error', (err) => (failure ??= err));
      req.on('close', () => finish(failure ?? new Error('the receiver closed the connection before answering')));
      req.end(body);
    });
  }
}
