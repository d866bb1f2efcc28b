import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FRONTIER_INDEX, INLINKS_INDEX, KEY, TTL_ATTRIBUTE } from '../shared/store/aws/table-layout.js';

export interface StorageProps {
  /** Use this table instead of creating one (it must have trawl's layout). */
  existingTableObj?: dynamodb.ITable;
  tableProps?: Partial<dynamodb.TableProps>;
  /** Use this bucket instead of creating one. */
  existingBucketObj?: s3.IBucket;
  bucketProps?: Partial<s3.BucketProps>;
  /** Raw bodies move to S3 Infrequent Access after this many days. */
  rawInfrequentAccessDays: number;
  /** Raw bodies are deleted after this many days (omit to keep them). */
  rawRetentionDays?: number;
  /** WARC files move to S3 Infrequent Access after this many days (omit to keep them in Standard). */
  warcInfrequentAccessDays?: number;
  /** WARC files are deleted after this many days (omit to keep them). */
  warcRetentionDays?: number;
  /** Extracted snapshots are deleted after this many days (omit to keep them). */
  extractedRetentionDays?: number;
  /** Old versions of overwritten objects are kept this long. */
  noncurrentVersionDays: number;
  removalPolicy: RemovalPolicy;
  /** The new table's warm throughput, and its frontier index's (false: DynamoDB's defaults for a new on-demand table). */
  warmThroughput: TableWarmThroughput | false;
}

/**
 * A new table's warm throughput unless `warmThroughput` says otherwise: a run at the construct's
 * default fetch concurrency on an open web (≈400 pages a second, each ≈45 write units on the table
 * and ≈15 on the frontier index, `bench:cloud-scale`) with room to double.
 */
export const DEFAULT_WARM_THROUGHPUT: TableWarmThroughput = {
  table: { writeUnitsPerSecond: 36_000, readUnitsPerSecond: 36_000 },
  frontierIndex: { writeUnitsPerSecond: 24_000, readUnitsPerSecond: 12_000 },
};

/** What a new table (and its frontier index, which takes a write for every URL discovered) serves from its first second. */
export interface TableWarmThroughput {
  readonly table: dynamodb.WarmThroughput;
  readonly frontierIndex: dynamodb.WarmThroughput;
}

/** The archive bucket (warc/, raw/, extracted/, reports/) and the single crawl table. */
export class CrawlStorage extends Construct {
  readonly bucket: s3.IBucket;
  readonly table: dynamodb.ITable;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    this.bucket = props.existingBucketObj ?? this.newBucket(props);
    this.table = props.existingTableObj ?? this.newTable(props);
  }

  private newBucket(props: StorageProps): s3.Bucket {
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: props.removalPolicy,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket of the archive; logging it into itself would loop.',
    });
    return new s3.Bucket(this, 'Archive', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'archive/',
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        {
          id: 'raw-bodies',
          prefix: 'raw/',
          transitions: [{ storageClass: s3.StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(props.rawInfrequentAccessDays) }],
          expiration: props.rawRetentionDays ? Duration.days(props.rawRetentionDays) : undefined,
        },
        ...(props.warcInfrequentAccessDays !== undefined || props.warcRetentionDays !== undefined
          ? [
              {
                id: 'warc-files',
                prefix: 'warc/',
                transitions:
                  props.warcInfrequentAccessDays === undefined
                    ? undefined
                    : [{ storageClass: s3.StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(props.warcInfrequentAccessDays) }],
                expiration: props.warcRetentionDays ? Duration.days(props.warcRetentionDays) : undefined,
              },
            ]
          : []),
        ...(props.extractedRetentionDays !== undefined
          ? [{ id: 'extracted-snapshots', prefix: 'extracted/', expiration: Duration.days(props.extractedRetentionDays) }]
          : []),
        // A run's end hands its ranking between steps under finalize/: kept a few days, to look into a failed end.
        { id: 'finalize-scratch', prefix: 'finalize/', expiration: Duration.days(3), noncurrentVersionExpiration: Duration.days(1) },
        { id: 'old-versions', noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays), abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      ...props.bucketProps,
    });
  }

  private newTable(props: StorageProps): dynamodb.Table {
    const table = new dynamodb.Table(this, 'Table', {
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy,
      ...props.tableProps,
      // The layout is a public contract (stream consumers read it): never overridden.
      partitionKey: { name: KEY.pk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: KEY.sk, type: dynamodb.AttributeType.STRING },
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // A new on-demand table serves 4,000 writes a second at first and doubles its peak at most every
      // 30 minutes: a large first run would be throttled for hours. Pre-warmed, it starts ready.
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput.table } : {}),
    });
    // One index: aliases by their target. SimHash bands are partitions of their own (measured: their
    // index cost a write unit a band a page).
    for (const ix of [INLINKS_INDEX]) {
      table.addGlobalSecondaryIndex({
        indexName: ix.name,
        partitionKey: { name: ix.pk, type: dynamodb.AttributeType.STRING },
        sortKey: { name: ix.sk, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    // The frontier: each run's queued URLs by host and priority, and its fetched pages by shard.
    table.addGlobalSecondaryIndex({
      indexName: FRONTIER_INDEX.name,
      partitionKey: { name: FRONTIER_INDEX.pk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: FRONTIER_INDEX.sk, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...FRONTIER_INDEX.projected],
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput.frontierIndex } : {}),
    });
    return table;
  }
}
