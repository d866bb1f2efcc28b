// A local stand-in for Amazon EventBridge speaking its wire protocol (JSON 1.1, `X-Amz-Target:
// AWSEvents.PutEvents`): no emulator of it runs here. It keeps what was put, by bus, and checks
// each entry as EventBridge does (a source, a detail-type, a detail that is a JSON object, a bus).
import { randomUUID } from 'node:crypto';
import { readBody, serve } from '../helpers.js';

export interface PutEvent {
  bus: string;
  source: string;
  detailType: string;
  detail: Record<string, unknown>;
}

export interface EventBridgeServer {
  origin: string;
  events: PutEvent[];
  /** The next PutEvents calls answer with every entry failed (EventBridge's partial failure). */
  failNext(calls: number): void;
  /** Every nth entry from now on is refused alone (ThrottlingException), as a busy bus refuses part of a call; an entry is refused once at most. */
  refuseEvery(n: number): void;
  close(): Promise<void>;
}

export async function startEventBridgeServer(): Promise<EventBridgeServer> {
  const events: PutEvent[] = [];
  let failing = 0;
  let refuseEvery = 0;
  let seen = 0;
  const refused = new Set<string>();
  const server = await serve(async (req, res) => {
    const reply = (status: number, payload: unknown) =>
      void res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
    const text = await readBody(req);
    if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents')
      return reply(400, { __type: 'UnknownOperationException', message: `unknown operation ${String(req.headers['x-amz-target'])}` });
    const { Entries = [] } = JSON.parse(text) as { Entries?: Array<Record<string, string>> };
    if (Entries.length === 0 || Entries.length > 10)
      return reply(400, { __type: 'ValidationException', message: `Entries must hold 1 to 10 entries, not ${Entries.length}` });
    if (failing > 0) {
      failing--;
      return reply(200, { FailedEntryCount: Entries.length, Entries: Entries.map(() => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' })) });
    }
    const answers = Entries.map((e) => {
      // An entry is refused once at most: a retry of it is taken, however the calls interleave.
      if (refuseEvery && !refused.has(e.Detail ?? '') && ++seen % refuseEvery === 0) {
        refused.add(e.Detail ?? '');
        return { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' };
      }
      let detail: unknown;
      try {
        detail = JSON.parse(e.Detail ?? '');
      } catch {
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON.' };
      }
      if (!e.Source || !e.DetailType || typeof detail !== 'object' || detail === null || Array.isArray(detail))
        return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter(s) Source, DetailType or Detail(s) not valid.' };
      events.push({ bus: e.EventBusName ?? 'default', source: e.Source, detailType: e.DetailType, detail: detail as Record<string, unknown> });
      return { EventId: randomUUID() };
    });
    reply(200, { FailedEntryCount: answers.filter((a) => 'ErrorCode' in a).length, Entries: answers });
  });
  return {
    origin: server.origin,
    events,
    failNext(calls) {
      failing = calls;
    },
    refuseEvery(n) {
      refuseEvery = n;
      seen = 0;
    },
    close: () => server.close(),
  };
}
