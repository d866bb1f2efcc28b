import type { Page } from 'puppeteer-core';
import type { BlockReason, RenderOutput, RenderRequest } from './renderer.js';
import type { RequestPolicy } from './request-policy.js';
import { POPUP_BINDING, REFUSE_WINDOWS } from './window-guard.js';
import type { SubresourceMemo } from './subresource-memo.js';
import { WIRE_HEADERS } from '../fetch/content-type.js';

/** A request of a rendered page, held until it is answered, refused or let through. */
export interface PausedRequest {
  url: string;
  method: string;
  /** Chromium's resource type, lower case: `document`, `script`, `xhr`, `fetch`, `image`, … */
  resourceType: string;
  /** A document request of the page's main frame: the page's own navigation, or one away from it. */
  mainFrameNavigation: boolean;
  /** The request's id in the Network domain (the driver's request id): its end is told under it. */
  networkId?: string;
  respond(response: { status: number; headers: Record<string, string>; body: Buffer }): Promise<void>;
  abort(): Promise<void>;
  continue(): Promise<void>;
}

/**
 * Holds every request of `page` until `handle` answers it, through the DevTools Fetch domain on a
 * session of the page's own. Not the driver's request interception, which turns the HTTP cache
 * off: a host's pages share a context so that its scripts and styles come from that cache after
 * the first page (`HostContexts`). A response served from the cache asks the site for nothing, so nothing of
 * it needs a check. The guard proxy behind the context checks every connection all the same,
 * including those of frames in other processes, which this session does not see.
 */
export async function interceptRequests(
  page: Page,
  handle: (request: PausedRequest) => Promise<void>,
  /** Told the network id of each request whose answer is in (or that failed, or was redirected). */
  onAnswered?: (networkId: string) => void,
): Promise<void> {
  const session = await page.createCDPSession();
  if (onAnswered) {
    session.on('Network.loadingFinished', (e) => onAnswered(e.requestId));
    session.on('Network.loadingFailed', (e) => onAnswered(e.requestId));
    // A redirect's next hop is a request of its own under the same id: the hop before it is answered.
    session.on('Network.requestWillBeSent', (e) => {
      if (e.redirectResponse) onAnswered(e.requestId);
    });
    await session.send('Network.enable');
  }
  const mainFrame = (await session.send('Page.getFrameTree')).frameTree.frame.id;
  session.on('Fetch.requestPaused', (event) => {
    const requestId = event.requestId;
    // A request of a page that has gone away cannot be answered any more: nothing to do.
    const send = (work: Promise<unknown>) =>
      work.then(
        () => undefined,
        () => undefined,
      );
    const request: PausedRequest = {
      url: event.request.url + (event.request.urlFragment ?? ''),
      method: event.request.method,
      resourceType: event.resourceType.toLowerCase(),
      mainFrameNavigation: event.resourceType === 'Document' && event.frameId === mainFrame,
      networkId: event.networkId,
      respond: ({ status, headers, body }) =>
        send(
          session.send('Fetch.fulfillRequest', {
            requestId,
            responseCode: status,
            responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
            body: body.toString('base64'),
          }),
        ),
      abort: () => send(session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })),
      continue: () => send(session.send('Fetch.continueRequest', { requestId })),
    };
    handle(request).catch(() => request.abort());
  });
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
}

/** One attempt's policy and what it and the context's guard proxy refused. */
export interface Traffic {
  policy: RequestPolicy;
  blocked: Partial<Record<BlockReason, number>>;
  block: (reason: BlockReason) => void;
  navigations: string[];
  throttled?: RenderOutput['throttled'];
  /** Requests to the page's host holding the host's turn, by network id, until answered (all let go when the attempt ends). */
  holding: Map<string, () => void>;
  /** The attempt is over: a request whose host turn comes now is not sent. */
  ended?: boolean;
}

/**
 * A request to the page's own host holds the host's turn at most this long: one that is not
 * answered by then (a long poll, an event stream) lets the host's other requests go on beside it.
 */
export const HOST_TURN_HOLD_MS = 5_000;

/** Lets `request` out and resolves when its answer is in (or HOST_TURN_HOLD_MS passed). */
function untilAnswered(request: PausedRequest & { networkId: string }, traffic: Traffic): Promise<void> {
  const { holding } = traffic;
  if (traffic.ended) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, HOST_TURN_HOLD_MS);
    function done() {
      clearTimeout(timer);
      holding.delete(request.networkId);
      resolve();
    }
    holding.set(request.networkId, done);
    void request.continue();
  });
}

/**
 * Serves the fetched document to the navigation, passes every other request through the policy
 * (answered from `memo` when the crawl's renders have it already), dismisses dialogs at once and
 * keeps the page from opening windows (refused before any request).
 */
export async function guardPage(page: Page, request: RenderRequest, traffic: Traffic, memo?: SubresourceMemo): Promise<void> {
  const pageUrl = new URL(request.url);
  const { policy, block, navigations } = traffic;
  let served = false;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.document.headers)) if (!WIRE_HEADERS.has(k)) headers[k] = v;
  // A dialog blocks the page's scripts until answered (alert on load stalled a render ~40 s).
  page.on('dialog', (dialog) => {
    block('dialog');
    void dialog.dismiss().catch(() => undefined);
  });
  await page.exposeFunction(POPUP_BINDING, () => block('popup'));
  await page.evaluateOnNewDocument(REFUSE_WINDOWS);
  page.on('popup', (popup) => {
    block('popup');
    void popup?.close().catch(() => undefined);
  });
  page.on('response', (res) => {
    const status = res.status();
    if ((status === 429 || status === 503) && new URL(res.url()).host === pageUrl.host)
      traffic.throttled ??= { status, retryAfter: res.headers()['retry-after'] };
    const url = res.url().split('#')[0]!;
    if (memo?.wants(pageUrl.host, url, { method: res.request().method(), resourceType: res.request().resourceType(), status, headers: res.headers() }))
      res.buffer().then(
        (body) => memo.remember(pageUrl.host, url, status, res.headers(), body),
        () => undefined, // the page went away before its body was read: nothing kept
      );
  });
  await interceptRequests(
    page,
    async (req: PausedRequest): Promise<void> => {
      if (req.mainFrameNavigation) {
        if (!served && req.url.split('#')[0] === pageUrl.href.split('#')[0]) {
          served = true;
          return req.respond({ status: request.document.status, headers, body: request.document.body });
        }
        block('navigation');
        navigations.push(req.url);
        return req.abort();
      }
      const verdict = await policy.check(req.url, req.resourceType);
      if (verdict.kind === 'block') {
        block(verdict.reason);
        return req.abort();
      }
      const kept = req.method === 'GET' ? memo?.recall(pageUrl.host, req.url.split('#')[0]!, req.resourceType) : undefined;
      if (kept) return req.respond(kept);
      const { networkId } = req;
      if (!request.hostTurn || networkId === undefined || new URL(req.url).host !== pageUrl.host) return req.continue();
      // A request to the page's host is a visit like any: it waits for the host's turn and holds it until answered.
      if (!(await request.hostTurn(() => untilAnswered({ ...req, networkId }, traffic)))) {
        block('host-stopped');
        return req.abort();
      }
    },
    request.hostTurn && ((networkId) => traffic.holding.get(networkId)?.()),
  );
}
