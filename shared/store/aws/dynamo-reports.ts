import type { HostState } from '../../politeness/host-state.js';
import { targetsOf, type RunActivity, type RunStatus, type RunSummary } from '../../ports/index.js';
import { activityOf } from './dynamo-activity.js';
import { DynamoHosts } from './dynamo-hosts.js';
import { REASON_COUNTER, STATE_COUNTER } from './dynamo-run-counters.js';
import { keys } from './table-layout.js';

/** A run's summary (its URLs by state, skips by reason, parked hosts) and its activity series, read back from its counters. */
export abstract class DynamoReports extends DynamoHosts {
  /**
   * The run's summary from two items and its parked hosts: the URLs by state and the skips by reason
   * are counters kept as URLs move (`u:<state>`, `r:<reason>` on COUNTERS), so the cost does not
   * grow with the run.
   */
  async summary(runId: number): Promise<RunSummary> {
    const [run, c, parked] = await Promise.all([this.get(keys.run(runId)), this.runCounters(runId), this.partition(`RUN#${runId}`, 'PARKED#')]);
    if (!run || !c) throw new Error(`run ${runId} is not in table ${this.table}: check the run id and the table name`);
    const counted = (prefix: string) =>
      Object.fromEntries(
        Object.entries(c)
          .filter(([k, n]) => k.startsWith(prefix) && Number(n) !== 0)
          .map(([k, n]) => [k.slice(prefix.length), Number(n)]),
      );
    const hostItems = await this.batchGet(parked.map((p) => keys.host(String(p.host))));
    return {
      runId,
      status: run.status as RunStatus,
      startedAt: Number(run.startedAt),
      finishedAt: run.finishedAt as number | undefined,
      seeds: run.seeds as string[],
      ...targetsOf((run.config ?? {}) as Record<string, unknown>),
      urlsByState: counted(STATE_COUNTER),
      skipsByReason: counted(REASON_COUNTER),
      fetchesByStatus: (c.fetches ?? {}) as Record<string, number>,
      requests: Number(c.requests),
      pagesStored: Number(c.pagesStored),
      unchanged: Number(c.unchanged),
      duplicates: Number(c.duplicates),
      bytes: Number(c.bytes),
      hostsParked: hostItems
        .map((h) => ({ host: String(h.host), reason: (h.state as HostState | undefined)?.parkedReason }))
        .filter((h): h is { host: string; reason: string } => typeof h.reason === 'string')
        .sort((a, b) => a.host.localeCompare(b.host)),
    };
  }

  async activity(runId: number): Promise<RunActivity> {
    const c = await this.runCounters(runId);
    if (!c) throw new Error(`run ${runId} is not in table ${this.table}: check the run id and the table name`);
    const minutes = await this.runItems(runId, 'ACT#');
    return activityOf(runId, c, minutes);
  }
}
