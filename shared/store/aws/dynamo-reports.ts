import type { HostState } from '../../politeness/host-state.js';
import { targetsOf, type RunActivity, type RunStatus, type RunSummary } from '../ports/index.js';
import { activityOf } from './dynamo-activity.js';
import { DynamoHosts } from './dynamo-hosts.js';
import { keys } from './table.js';

/** A run's summary (its URLs by state, skips by reason, parked hosts) and its activity series, read back from the table. */
export abstract class DynamoReports extends DynamoHosts {
  async summary(runId: number): Promise<RunSummary> {
    const [run, c] = await Promise.all([this.get(keys.run(runId)), this.get(keys.runCounters(runId))]);
    if (!run || !c) throw new Error(`run ${runId} is not in table ${this.table}: check the run id and the table name`);
    const urls = await this.partition(`RUN#${runId}`, 'URL#');
    const urlsByState: Record<string, number> = {};
    const skipsByReason: Record<string, number> = {};
    const hosts = new Set<string>();
    for (const u of urls) {
      urlsByState[String(u.state)] = (urlsByState[String(u.state)] ?? 0) + 1;
      if (['skipped', 'blocked', 'failed', 'duplicate'].includes(String(u.state)))
        skipsByReason[String(u.reason ?? 'none')] = (skipsByReason[String(u.reason ?? 'none')] ?? 0) + 1;
      hosts.add(String(u.host));
    }
    const hostItems = await this.batchGet([...hosts].map((h) => keys.host(h)));
    return {
      runId,
      status: run.status as RunStatus,
      startedAt: Number(run.startedAt),
      finishedAt: run.finishedAt as number | undefined,
      seeds: run.seeds as string[],
      ...targetsOf((run.config ?? {}) as Record<string, unknown>),
      urlsByState,
      skipsByReason,
      fetchesByStatus: (c.fetches ?? {}) as Record<string, number>,
      requests: Number(c.requests),
      pagesStored: Number(c.pagesStored),
      unchanged: Number(c.unchanged),
      duplicates: Number(c.duplicates),
      bytes: Number(c.bytes),
      hostsParked: hostItems
        .map((h) => ({ host: String(h.host), reason: (h.state as HostState | undefined)?.parkedReason }))
        .filter((h): h is { host: string; reason: string } => typeof h.reason === 'string'),
    };
  }

  async activity(runId: number): Promise<RunActivity> {
    const c = await this.get(keys.runCounters(runId));
    if (!c) throw new Error(`run ${runId} is not in table ${this.table}: check the run id and the table name`);
    const minutes = await this.queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :act)',
      ExpressionAttributeValues: { ':pk': keys.run(runId).PK, ':act': 'ACT#' },
    });
    return activityOf(runId, c, minutes);
  }
}
