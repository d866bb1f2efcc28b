import { z } from 'zod';
import { MalformedMessageError } from '../errors.js';
import type { FrontierRow } from './records.js';

/** The body of a frontier message: a frontier row, validated before anything acts on it. */
export const frontierMessageSchema = z.object({
  runId: z.number().int().min(1),
  urlId: z.string().regex(/^[0-9a-f]{32}$/, 'a 32-digit hex url id'),
  url: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'an http(s) URL'),
  host: z.string().min(1),
  depth: z.number().int().min(0),
  priority: z.number(),
  kind: z.enum(['page', 'feed', 'sitemap', 'robots']),
  state: z.string(),
  reason: z.string().optional(),
  inlinks: z.number().int().min(0),
  fresh: z.boolean(),
  redirects: z.number().int().min(0),
  attempts: z.number().int().min(0),
  notBefore: z.number(),
  discoveredFrom: z.string().optional(),
  rawUrl: z.string().optional(),
});

/** Parses a frontier message body; a body that is not a frontier row throws `MalformedMessageError` with the reason. */
export function parseFrontierMessage(body: string): FrontierRow {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedMessageError(`the body is not JSON (${body.slice(0, 60)})`);
  }
  const parsed = frontierMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MalformedMessageError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data as FrontierRow;
}
