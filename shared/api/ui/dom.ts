// The UI's building blocks: elements made from text (never HTML), the API client, and links.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, shaped by its OpenAPI schemas
export type Json = Record<string, any>;
export type Child = Node | string | number | null | undefined | false;

export const view = document.getElementById('view')!;

export function h(tag: string, attrs: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GETs the API; a 401 asks for the bearer token once and keeps it for the tab. */
export async function api(path: string): Promise<Json> {
  const token = sessionStorage.getItem('trawl-token');
  const res = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status === 401) {
    const given = window.prompt('This trawl server needs its token (the --token it was started with):');
    if (given) {
      sessionStorage.setItem('trawl-token', given);
      return api(path);
    }
  }
  const body = (await res.json().catch(() => ({ error: res.statusText }))) as Json;
  if (!res.ok) throw new HttpError(res.status, String(body.error ?? res.statusText));
  return body;
}

export const pageLink = (id: string, text: string) => h('a', { href: `#/page/${id}` }, text);
export const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
export const tagChip = (tag: string) => h('a', { class: 'tag', href: `#/?q=&tags=${encodeURIComponent(tag)}` }, tag);

export function failure(err: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err));
}
