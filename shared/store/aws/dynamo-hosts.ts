import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newHostState, type HostState } from '../../politeness/host-state.js';
import type { HostRecord } from '../../ports/index.js';
import { DynamoContent } from './dynamo-content.js';
import { keys } from './table-layout.js';

/** Hosts on the single table: politeness state (HOST) and robots.txt (ROBOTS, long bodies in the blob store). */
export abstract class DynamoHosts extends DynamoContent {
  async getHost(host: string): Promise<HostRecord | undefined> {
    const items = await this.queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.host(host).PK }, ConsistentRead: true });
    const politeness = items.find((i) => i.SK === 'HOST');
    const robots = items.find((i) => i.SK === 'ROBOTS');
    if (!politeness?.state && !robots) return undefined;
    return {
      // A host first seen by a claim has no politeness state yet: it starts fresh.
      host,
      state: (politeness?.state as HostState | undefined) ?? newHostState(host),
      robotsStatus: robots?.robotsStatus as number | undefined,
      robotsBody: await this.unspill(robots?.robotsBody, robots?.robotsBodyBlob),
      robotsError: robots?.robotsError as string | undefined,
      robotsFetchedAt: robots?.robotsFetchedAt as number | undefined,
      robotsExpiresAt: robots?.robotsExpiresAt as number | undefined,
    };
  }

  /** Writes the host's robots.txt (replacing the stored one) and its politeness state, keeping a claim another call holds. */
  async putHost(record: HostRecord): Promise<void> {
    const { text, blob } = await this.spill(record.robotsBody);
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.robots(record.host),
          type: 'ROBOTS',
          host: record.host,
          robotsStatus: record.robotsStatus,
          robotsBody: text,
          robotsBodyBlob: blob,
          robotsError: record.robotsError,
          robotsFetchedAt: record.robotsFetchedAt,
          robotsExpiresAt: record.robotsExpiresAt,
        },
      }),
    );
    await this.putHostState(record.state);
  }
}
