/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON request bodies of three model APIs, read loosely by the tests */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TAGS_SYSTEM } from '../../shared/enrich/prompts.js';
import { serve } from '../../support/helpers.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One scripted answer: status, headers and a JSON (or raw string) body. */
export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Answered after this long (a slow model). */
  delayMs?: number;
}

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

/**
 * A loopback model API: each path answers from its script (first in, first out), then from its
 * default. Every request is recorded with its parsed JSON body.
 */
export async function modelServer(defaults: Record<string, (body: Record<string, any>, path: string) => Scripted>, protocol: 'http1' | 'h2' = 'http1') {
  const scripts = new Map<string, Scripted[]>();
  const seen: SeenRequest[] = [];
  const route = (path: string) => Object.keys(defaults).find((k) => new RegExp(`^${k}$`).test(path));
  const handler: Handler = (req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      const body = raw ? (JSON.parse(raw) as Record<string, any>) : {};
      seen.push({ path, headers: req.headers, body });
      const key = route(path);
      const answer =
        (key ? scripts.get(key)?.shift() : undefined) ?? (key ? defaults[key]!(body, path) : { status: 404, body: { message: `no route ${path}` } });
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(text);
      }, answer.delayMs ?? 0);
    });
  };
  const server = await serve(handler, protocol);
  return {
    ...server,
    seen,
    /** Queues answers for a route pattern, ahead of its default. */
    script(pattern: string, ...answers: Scripted[]) {
      scripts.set(pattern, [...(scripts.get(pattern) ?? []), ...answers]);
    },
  };
}

/** A deterministic fake embedding of a text: its letter counts, so similar texts get similar vectors. */
export function letterVector(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const ch of text.toLowerCase()) {
    const c = ch.charCodeAt(0);
    if (c >= 97 && c <= 122) v[(c - 97) % dimension]! += 1;
  }
  return v;
}

/**
 * An OpenAI-compatible server for the crawled fixture pages: `fail(title)` may answer a page's chat
 * calls with an error; otherwise a summary made from the title, the given tags, and 16-dimension
 * letter vectors.
 */
export function pagesModelServer(tags: string[], summary: (title: string) => string, fail: (title: string) => Scripted | undefined = () => undefined) {
  return modelServer({
    '/v1/chat/completions': (body) => {
      const title = /^Title: (.*)$/m.exec(body.messages[1].content as string)![1]!;
      const failed = fail(title);
      if (failed) return failed;
      const content = body.messages[0].content === TAGS_SYSTEM ? JSON.stringify(tags) : summary(title);
      return { body: { choices: [{ index: 0, message: { role: 'assistant', content } }] } };
    },
    '/v1/embeddings': (body) => ({ body: { data: (body.input as string[]).map((t, index) => ({ index, embedding: letterVector(t, 16) })) } }),
  });
}
