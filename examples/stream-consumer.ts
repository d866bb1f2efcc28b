// An example downstream service: a Lambda on the crawl table's DynamoDB stream that reacts to
// pages whose content changed and to new links. Deploy it in your own stack with
// `fn.addEventSource(new DynamoEventSource(crawler.storage.table, { startingPosition: LATEST }))`.
import { gunzipSync } from 'node:zlib';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';

export interface PageChange {
  url: string;
  /** The SHA-256 of the new body: its extraction is at `extracted/<urlId>/<hash>.json`, its bytes in the WARC record its FETCH item names (`warc/run-<id>/<warc.file>`, `warc.offset`, `warc.length`). */
  contentHash: string;
  previousHash?: string;
  fetchedAt: number;
}

export interface NewLink {
  fromId: string;
  toUrl: string;
  anchor: string;
  context: string;
  section: string;
}

/**
 * Reads PAGE and LINKS items from stream records (NEW_AND_OLD_IMAGES): pages whose body changed,
 * and the links of each new page snapshot (a LINKS item holds a snapshot's links as gzipped JSON).
 */
export function changesFrom(event: DynamoDBStreamEvent): { pages: PageChange[]; links: NewLink[] } {
  const pages: PageChange[] = [];
  const links: NewLink[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (!image || record.eventName === 'REMOVE') continue;
    const item = unmarshall(image as Record<string, AttributeValue>);
    const old = record.dynamodb?.OldImage ? unmarshall(record.dynamodb.OldImage as Record<string, AttributeValue>) : undefined;
    if (item.type === 'PAGE' && item.contentHash && item.contentHash !== old?.contentHash) {
      pages.push({ url: item.url, contentHash: item.contentHash, previousHash: old?.contentHash, fetchedAt: item.fetchedAt });
    } else if (item.type === 'LINKS' && record.eventName === 'INSERT') {
      const edges = JSON.parse(gunzipSync(item.links as Uint8Array).toString()) as Array<Omit<NewLink, 'fromId'>>;
      for (const e of edges) links.push({ fromId: item.urlId, toUrl: e.toUrl, anchor: e.anchor, context: e.context, section: e.section });
    }
  }
  return { pages, links };
}

export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  const { pages, links } = changesFrom(event);
  for (const p of pages) console.log(JSON.stringify({ changed: p.url, from: p.previousHash ?? 'new', to: p.contentHash }));
  console.log(JSON.stringify({ newLinks: links.length }));
}
