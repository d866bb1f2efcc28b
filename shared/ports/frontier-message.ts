import { z } from 'zod';
import { MalformedMessageError } from '../errors.js';
import type { HostTurn } from './host-queues.js';

/** The body of a dispatch message: a turn at a host for a run, validated before anything acts on it. */
export const hostTurnSchema = z.object({
  runId: z.number().int().min(1),
  host: z.string().min(1).max(260),
  turn: z.number().int().min(1),
});

/** Parses a dispatch message body; a body that is not a host turn throws `MalformedMessageError` with the reason. */
export function parseHostTurn(body: string): HostTurn {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedMessageError(`the body is not JSON (${body.slice(0, 60)})`);
  }
  const parsed = hostTurnSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MalformedMessageError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}
