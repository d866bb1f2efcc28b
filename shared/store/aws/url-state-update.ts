// The DynamoDB update that sets a URL item's state: the attributes it sets and removes, and where
// the item sits in the frontier index afterwards. Pure: the store sends it.
import { FINAL_STATES, type UrlState } from '../../ports/index.js';
import { doneShardKey, FRONTIER_INDEX, shardOf } from './table-layout.js';

/** The URL states whose fetch stored a page: the run's end ranks them. */
const PAGE_STATES: ReadonlySet<UrlState> = new Set(['done', 'duplicate']);

export interface StateFields {
  state: UrlState;
  reason?: string;
  attempts?: number;
  notBefore?: number;
  clearReason?: boolean;
}

/**
 * The update of a URL's item to `fields`: `removeReason` says the item's reason goes (a final
 * state with none given). The frontier index: a fetched URL with a page (done, or a duplicate's
 * copy) joins its shard's pages, which the run's end ranks as the embedded runtime ranks every
 * stored page; any other state but queued leaves its host's queue (a URL queued again rejoins it).
 */
export function stateUpdate(
  runId: number,
  urlId: string,
  shards: number,
  fields: StateFields,
): { expression: string; names: Record<string, string>; values: Record<string, unknown>; removeReason: boolean } {
  const sets = ['#st = :st'];
  const values: Record<string, unknown> = { ':st': fields.state };
  if (fields.reason !== undefined) {
    sets.push('#r = :r');
    values[':r'] = fields.reason;
  }
  if (fields.attempts !== undefined) {
    sets.push('attempts = :a', 'notBefore = :nb');
    values[':a'] = fields.attempts;
    values[':nb'] = fields.notBefore ?? 0;
  } else if (fields.notBefore !== undefined) {
    sets.push('notBefore = :nb');
    values[':nb'] = fields.notBefore;
  }
  const removes: string[] = [];
  const indexed = PAGE_STATES.has(fields.state);
  if (indexed) {
    sets.push('#qpk = :qpk', '#qsk = :qsk');
    values[':qpk'] = doneShardKey(runId, shardOf(urlId, shards));
    values[':qsk'] = urlId;
  } else if (fields.state !== 'queued') removes.push('#qpk', '#qsk');
  const removeReason = fields.reason === undefined && (FINAL_STATES.has(fields.state) || Boolean(fields.clearReason));
  if (removeReason) removes.push('#r');
  const names: Record<string, string> = { '#st': 'state' };
  if (indexed || removes.includes('#qpk')) Object.assign(names, { '#qpk': FRONTIER_INDEX.pk, '#qsk': FRONTIER_INDEX.sk });
  if (fields.reason !== undefined || removeReason) names['#r'] = 'reason';
  return { expression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`, names, values, removeReason };
}
