// The user's session cookies (`--cookies`): each is sent only to the host its domain names, by the
// HTTP fetcher and by that host's browser context alike, and never archived in plain text.
import { z } from 'zod';
import { checkedSetting, jsonSettingValue } from '../util/json-setting.js';

/** A cookie of the user's session, as browsers and Playwright's storage state write them. */
export interface SessionCookie {
  name: string;
  value: string;
  /** A leading dot (or `hostOnly: false`) also sends it to subdomains; otherwise to this host only. */
  domain: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  hostOnly?: boolean;
}
const Cookie = z
  .object({
    name: z.string().min(1),
    value: z.string(),
    domain: z.string().min(1),
    path: z.string().optional(),
    secure: z.boolean().optional(),
    httpOnly: z.boolean().optional(),
    hostOnly: z.boolean().optional(),
  })
  .passthrough();
const CookieList = z.array(Cookie);
/** Playwright's storage state: its `cookies` (its `origins`, local storage, are not used). */
const StorageState = z.object({ cookies: CookieList }).passthrough();

/** The user's session cookies from `--cookies` (a JSON array, or a storage state with `cookies`). */
export function sessionCookiesOf(settings: { cookies?: unknown }): SessionCookie[] {
  const value = jsonSettingValue('cookies', settings.cookies ?? '');
  if (value === undefined) return [];
  const given = Array.isArray(value) ? checkedSetting('cookies', CookieList, value) : checkedSetting('cookies', StorageState, value).cookies;
  return given.map((c) => ({ ...c, domain: c.domain.toLowerCase() }));
}

/** The cookies a URL is sent: its host's (or its parent domain's, for a domain cookie), its path, https for secure ones. */
export function cookiesFor(cookies: readonly SessionCookie[], url: string): SessionCookie[] {
  if (cookies.length === 0) return [];
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  return cookies.filter((c) => {
    const domain = c.domain.replace(/^\./, '');
    const hostOnly = c.hostOnly ?? !c.domain.startsWith('.');
    if (!(host === domain || (!hostOnly && host.endsWith(`.${domain}`)))) return false;
    if (c.secure && u.protocol !== 'https:') return false;
    const path = c.path ?? '/';
    return u.pathname === path || u.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
  });
}

/** The cookies a host's pages may send, whatever their path: those a browser context of the host is given. */
export function cookiesOfHost(cookies: readonly SessionCookie[], url: string): SessionCookie[] {
  const host = new URL(url).hostname.toLowerCase();
  return cookies.filter((c) => {
    const domain = c.domain.replace(/^\./, '');
    const hostOnly = c.hostOnly ?? !c.domain.startsWith('.');
    return host === domain || (!hostOnly && host.endsWith(`.${domain}`));
  });
}

/** A `Cookie` header of those cookies (undefined when there are none). */
export function cookieHeader(cookies: readonly SessionCookie[]): string | undefined {
  return cookies.length ? cookies.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
}

/** What a stored config keeps of a `cookies` setting in place of the cookies: where they came from, never their values. */
export interface CookiesAtRest {
  /** The file they were read from, when they came from one. */
  file?: string;
  /** How many there were, and the domains they were for. */
  cookies: number;
  domains: string[];
}

/**
 * A `cookies` setting as a stored config keeps it (a run's config in trawl.db, a job's options in
 * jobs.db): a reference to where the cookies came from, with their count and domains, never their
 * values. No setting (an empty one) stays as it is.
 */
export function cookiesAtRest(value: unknown): CookiesAtRest | unknown {
  if (value === undefined || value === '' || isCookiesAtRest(value)) return value;
  const text = typeof value === 'string' ? value.trim() : undefined;
  let cookies: SessionCookie[] = [];
  try {
    cookies = sessionCookiesOf({ cookies: value });
  } catch {
    // Cookies that do not parse were refused before any crawl; what is stored still names none.
  }
  const domains = [...new Set(cookies.map((c) => c.domain))].sort();
  return { ...(text && !/^[[{]/.test(text) ? { file: text } : {}), cookies: cookies.length, domains };
}

/** Whether a stored `cookies` value is the reference `cookiesAtRest` made (the cookies themselves are gone). */
export function isCookiesAtRest(value: unknown): value is CookiesAtRest {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { cookies?: unknown }).cookies === 'number';
}
