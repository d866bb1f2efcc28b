import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

/** Whether a request may write, and if not, the answer it gets. */
export type WriteAccess = { allowed: true; caller?: string } | { allowed: false; status: 401 | 403; error: string };

export interface WritePolicy {
  /** The token every write needs (`--write-token`, TRAWL_API_WRITE_TOKEN); absent: writes are off. */
  writeToken?: string;
  /**
   * Who authorises writes: the write token (`token`), or the Lambda Function URL's IAM auth (`iam`),
   * where AWS checked `lambda:InvokeFunctionUrl` before the request arrived.
   * @default 'token'
   */
  writeAuth?: 'token' | 'iam';
  /**
   * With `iam`: the IAM principals that may write (role or user ARNs). A role's sessions
   * (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) count as the role. Absent: every
   * principal allowed to invoke the URL may write.
   */
  writers?: readonly string[];
}

/** What a write decision reads of a request: its `Authorization` header and, behind IAM auth, the caller's ARN. */
export interface WriteRequest {
  authorization?: string;
  /** The signed caller (a Function URL's `requestContext.authorizer.iam.userArn`). */
  caller?: string;
}

/** Decides whether a request may write. */
export type WriteDecision = (request: WriteRequest) => WriteAccess;

/** The caller's ARN behind a Lambda Function URL's IAM auth, read off the Lambda event Hono's adapter keeps. */
export function writeRequestOf(c: Context): WriteRequest {
  const event = (c.env as { event?: { requestContext?: { authorizer?: { iam?: { userArn?: unknown } } } } } | undefined)?.event;
  const caller = event?.requestContext?.authorizer?.iam?.userArn;
  return { authorization: c.req.header('authorization'), ...(typeof caller === 'string' ? { caller } : {}) };
}

/**
 * Whether a caller is one of the writers: the same ARN, or a session of a writer role
 * (`arn:aws:iam::A:role/[path/]R` covers `arn:aws:sts::A:assumed-role/R/<session>`).
 */
export function callerIsWriter(caller: string | undefined, writers: readonly string[]): boolean {
  if (!caller) return false;
  return writers.some((w) => {
    if (w === caller) return true;
    const role = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(w);
    return role !== null && caller.startsWith(`arn:${role[1]}:sts::${role[2]}:assumed-role/${role[3]}/`);
  });
}

const sha = (s: string) => createHash('sha256').update(s).digest();

/**
 * The one decision every writer asks, whatever the route or protocol: a REST route that starts,
 * stops or changes anything, and an MCP tool that crawls or fetches. The read token never writes,
 * loopback included: a page in the user's browser can reach a loopback server.
 */
export function writeDecision(policy: WritePolicy): WriteDecision {
  if (policy.writeAuth === 'iam') {
    const writers = policy.writers;
    if (!writers?.length) return ({ caller }) => ({ allowed: true, ...(caller ? { caller } : {}) });
    return ({ caller }) =>
      callerIsWriter(caller, writers)
        ? { allowed: true, caller }
        : {
            allowed: false,
            status: 403,
            error: `${caller ?? 'this caller'} may read but not write: writes are for the deployment's writers (api.startCrawls.writers)`,
          };
  }
  const expected = policy.writeToken === undefined ? undefined : sha(policy.writeToken);
  return ({ authorization }) => {
    if (!expected)
      return { allowed: false, status: 403, error: 'writes over HTTP are off: start trawl serve with --write-token <secret> (or TRAWL_API_WRITE_TOKEN)' };
    const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(sha(given), expected))
      return { allowed: false, status: 401, error: 'missing or wrong write token: send Authorization: Bearer <write token> (the read token cannot write)' };
    return { allowed: true };
  };
}

/** Methods that read: everything else writes. */
/** Methods that never write: the write guard lets them through. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses every writing method without write access, on every route but those in `perOperation`,
 * which decide per operation with the same decision (MCP's JSON-RPC posts reads and writes alike).
 */
export function writeGuard(decide: WriteDecision, perOperation: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || perOperation.includes(c.req.path)) return next();
    const access = decide(writeRequestOf(c));
    if (!access.allowed) return c.json({ error: access.error }, access.status);
    return next();
  };
}
