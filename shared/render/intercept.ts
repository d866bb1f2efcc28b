import type { BrowserContext, Page } from 'playwright-core';

/** A request of a rendered page, held until it is answered, refused or let through. */
export interface PausedRequest {
  url: string;
  /** Chromium's resource type, lower case: `document`, `script`, `xhr`, `fetch`, `image`, … */
  resourceType: string;
  /** A document request of the page's main frame: the page's own navigation, or one away from it. */
  mainFrameNavigation: boolean;
  respond(response: { status: number; headers: Record<string, string>; body: Buffer }): Promise<void>;
  abort(): Promise<void>;
  continue(): Promise<void>;
}

/**
 * Holds every request of `page` until `handle` answers it, through the DevTools Fetch domain on a
 * session of the page's own. Not Playwright's `page.route`: routing turns the HTTP cache off, and a
 * host's pages share a context so that its scripts and styles come from that cache after the first
 * page (`HostContexts`). A response served from the cache asks the site for nothing, so nothing of
 * it needs a check. The guard proxy behind the context checks every connection all the same,
 * including those of frames in other processes, which this session does not see.
 */
export async function interceptRequests(context: BrowserContext, page: Page, handle: (request: PausedRequest) => Promise<void>): Promise<void> {
  const session = await context.newCDPSession(page);
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
      resourceType: event.resourceType.toLowerCase(),
      mainFrameNavigation: event.resourceType === 'Document' && event.frameId === mainFrame,
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
