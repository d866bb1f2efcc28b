import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** Whether a request may write, and if not, the answer it gets. */
export type WriteAccess = { allowed: true } | { allowed: false; status: 401 | 403; error: string };

export interface WritePolicy {
  /** The token every write needs (`--write-token`, TRAWL_API_WRITE_TOKEN); absent: writes are off. */
  writeToken?: string;
  /**
   * Who authorises writes: the write token (`token`), or the Lambda Function URL's IAM auth (`iam`),
   * where AWS checked `lambda:InvokeFunctionUrl` before the request arrived.
   * @default 'token'
   */
  writeAuth?: 'token' | 'iam';
}

/** Decides, from a request's `Authorization` header, whether it may write. */
export type WriteDecision = (authorization: string | undefined) => WriteAccess;

const sha = (s: string) => createHash('sha256').update(s).digest();

/**
 * The one decision every writer asks, whatever the route or protocol: a REST route that starts,
 * stops or changes anything, and an MCP tool that crawls or fetches. The read token never writes,
 * loopback included: a page in the user's browser can reach a loopback server.
 */
export function writeDecision(policy: WritePolicy): WriteDecision {
  if (policy.writeAuth === 'iam') return () => ({ allowed: true });
  const expected = policy.writeToken === undefined ? undefined : sha(policy.writeToken);
  return (authorization) => {
    if (!expected)
      return { allowed: false, status: 403, error: 'writes over HTTP are off: start trawl serve with --write-token <secret> (or TRAWL_API_WRITE_TOKEN)' };
    const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(sha(given), expected))
      return { allowed: false, status: 401, error: 'missing or wrong write token: send Authorization: Bearer <write token> (the read token cannot write)' };
    return { allowed: true };
  };
}

/** Methods that read: everything else writes. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses every writing method without write access, on every route but those in `perOperation`,
 * which decide per operation with the same decision (MCP's JSON-RPC posts reads and writes alike).
 */
export function writeGuard(decide: WriteDecision, perOperation: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || perOperation.includes(c.req.path)) return next();
    const access = decide(c.req.header('authorization'));
    if (!access.allowed) return c.json({ error: access.error }, access.status);
    return next();
  };
}
