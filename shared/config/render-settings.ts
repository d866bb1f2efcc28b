import { z } from 'zod';
import { bool, int, ms, setting } from './setting.js';

/** When pages go through headless Chromium: decided per page, never, or every HTML page. */
export type RenderMode = 'auto' | 'never' | 'always';

const RENDER_MODES = ['auto', 'never', 'always'] as const;
const HOST_OVERRIDE = /^([a-z0-9.-]+(?::\d+)?)=(auto|never|always)$/i;

/** Per-host render modes as `host=mode` (`app.example.com=always`); the host may carry a port. */
const hostOverrides = z.array(z.string()).superRefine((entries, ctx) => {
  for (const e of entries) {
    if (!HOST_OVERRIDE.test(e)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(e)} is not host=auto|never|always` });
  }
});

/** The render mode of a host: its override from `renderHost`, else the crawl's mode. */
export function renderModeFor(settings: { render: RenderMode; renderHost: string[] }, host: string): RenderMode {
  for (const entry of settings.renderHost) {
    const m = HOST_OVERRIDE.exec(entry);
    if (m && m[1]!.toLowerCase() === host.toLowerCase()) return m[2]!.toLowerCase() as RenderMode;
  }
  return settings.render;
}

/** The settings of the Chromium fallback (`shared/render/`), spread into the settings table. */
export const RENDER_SETTINGS = {
  render: setting({
    schema: z.enum(RENDER_MODES),
    expects: 'one of auto, never, always',
    default: 'auto' as RenderMode,
    flag: 'render',
    env: 'TRAWL_RENDER',
    help: 'run pages through headless Chromium: auto (pages that need JavaScript), never, always',
    type: 'string',
  }),
  renderHost: setting({
    schema: hostOverrides,
    expects: 'host=auto|never|always entries',
    default: [] as string[],
    flag: 'render-host',
    env: 'TRAWL_RENDER_HOSTS',
    help: 'render mode of one host, as host=mode (repeatable)',
    type: 'list',
  }),
  renderConcurrency: setting({
    schema: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(32)]),
    expects: 'auto or a whole number from 1 to 32',
    default: 'auto' as 'auto' | number,
    flag: 'render-concurrency',
    env: 'TRAWL_RENDER_CONCURRENCY',
    help: 'pages rendering at once in the one browser (auto: one a core, as free memory allows, at most 8)',
    type: 'string',
  }),
  actions: setting({
    schema: z.union([z.string().max(4096), z.array(z.unknown())]),
    expects: 'a JSON list of actions, or of {"pattern", "actions"} rules: a file, its JSON text, or (library) the list',
    default: '' as string | unknown[],
    flag: 'actions',
    env: 'TRAWL_ACTIONS',
    help: 'actions run on a page in the browser before it is read (wait, click, scroll, write, press, screenshot, executeJavascript); such pages are rendered',
    type: 'string',
  }),
  cookies: setting({
    schema: z.union([z.string().max(4096), z.array(z.unknown()), z.record(z.string(), z.unknown())]),
    expects: 'a JSON list of cookies, or a storage state with "cookies": a file, its JSON text, or (library) the value',
    default: '' as string | unknown[] | Record<string, unknown>,
    flag: 'cookies',
    env: 'TRAWL_COOKIES',
    help: "the session's cookies, each sent only to the host its domain names (fetches and renders); their values are never stored (a run's config names where they came from)",
    type: 'string',
  }),
  rendersPerHost: setting({
    ...int(1, 16),
    default: 4,
    flag: 'renders-per-host',
    env: 'TRAWL_RENDERS_PER_HOST',
    help: 'pages of one host rendering at once; their requests to the host still go one at a time, and a page of a kind whose renders have not yet gained anything renders alone',
    type: 'string',
  }),
  renderTimeoutMs: setting({
    ...ms(1000, 300_000),
    default: 20_000,
    flag: 'render-timeout-ms',
    env: 'TRAWL_RENDER_TIMEOUT_MS',
    help: 'hard cap of one render, navigation included; a page past it is a hang (browser restarted, page retried once)',
    type: 'string',
  }),
  renderSettleMs: setting({
    ...ms(0, 120_000),
    default: 5_000,
    flag: 'render-settle-ms',
    env: 'TRAWL_RENDER_SETTLE_MS',
    help: 'longest wait for the network to go idle after the document loaded; the DOM is taken then either way',
    type: 'string',
  }),
  renderMaxRequests: setting({
    ...int(0, 10_000),
    default: 150,
    flag: 'render-max-requests',
    env: 'TRAWL_RENDER_MAX_REQUESTS',
    help: 'requests one rendered page may make (scripts, styles, XHR); the rest are blocked and counted',
    type: 'string',
  }),
  renderRecycleAfter: setting({
    ...int(1, 1_000_000),
    default: 100,
    flag: 'render-recycle-after',
    env: 'TRAWL_RENDER_RECYCLE_AFTER',
    help: 'pages one browser renders before it is replaced by a fresh one',
    type: 'string',
  }),
  renderMemoryMb: setting({
    ...int(32, 8192),
    default: 512,
    flag: 'render-memory-mb',
    env: 'TRAWL_RENDER_MEMORY_MB',
    help: 'JavaScript heap of a rendered page; a page past it crashes its tab alone',
    type: 'string',
  }),
  screenshot: setting({
    ...bool,
    default: false,
    flag: 'screenshot',
    env: 'TRAWL_SCREENSHOT',
    help: 'keep a full-page PNG of each rendered page (height capped) as a blob and in the archive',
    type: 'boolean',
  }),
};
