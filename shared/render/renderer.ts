import type { ActionLog, PageAction } from './actions.js';
import type { SessionCookie } from '../fetch/session-cookies.js';
/** One page to render: the document as it was fetched over HTTP is what the browser loads. */
export interface RenderRequest {
  url: string;
  /** The fetched response, served to the browser for the navigation: the page is not requested twice. */
  document: { status: number; headers: Record<string, string>; body: Buffer };
  screenshot: boolean;
  /** Whether robots.txt lets the page's own host be asked for this URL (subresources of the page's host). */
  robotsAllows?: (url: string) => boolean;
  /**
   * The host's turns for the page's requests to its own host: runs `request` (which ends when its
   * answer is in) when the host takes a request, one at a time with its other requests (fetches,
   * the requests of its other pages rendering), and answers false when the host takes no more
   * (parked, crawl stopping): the request is refused then. Without it the page's requests go out
   * as the page makes them.
   */
  hostTurn?: (request: () => Promise<void>) => Promise<boolean>;
  /** Actions run on the page, in order, once it has settled and before it is read (`--actions`). */
  actions?: readonly PageAction[];
  /** The user's session cookies of the page's host (`--cookies`), set in its context before the page loads. */
  cookies?: readonly SessionCookie[];
}

/** Why a request the page made was not let through. */
export type BlockReason =
  'resource-type' | 'scheme' | 'private-address' | 'request-cap' | 'robots' | 'navigation' | 'popup' | 'download' | 'dialog' | 'host-stopped';

export interface RenderOutput {
  /** The DOM after scripts ran, serialised. */
  html: string;
  durationMs: number;
  /** The network went idle before the settle cap (false: the DOM was taken when the cap ran out). */
  settled: boolean;
  /** Requests the page made that went out (the document itself is not one: it is served from the fetch). */
  requests: number;
  /** Requests refused (and dialogs dismissed), by reason: from request interception and from the guard proxy. */
  blocked: Partial<Record<BlockReason, number>>;
  /** Visible text and distinct links of the rendered page, measured in the browser. */
  textChars: number;
  links: number;
  /** Main-frame navigations the page tried (script redirects): blocked, and offered to the frontier. */
  navigations: string[];
  /** A request to the page's own host that was answered 429 or 503: the host asks us to slow down. */
  throttled?: { status: number; retryAfter?: string };
  /** What each of the request's actions did, in order. */
  actions?: ActionLog[];
  /** 1, or 2 when the first attempt crashed or hung. */
  attempts: number;
  screenshot?: Buffer;
}

/** Turns a fetched page into its rendered DOM. */
export interface Renderer {
  render(request: RenderRequest): Promise<RenderOutput>;
  /** Pages it renders at once; the rest wait their turn. */
  readonly concurrency: number;
  /** Closes the browser and removes its profile; renders in flight fail. */
  close(): Promise<void>;
}
