// The IAM contract: every AWS SDK call a handler makes during the cloud suites is
// recorded (which function, which action, on which resource) and evaluated against the policy the
// synthesized template gives that function's role. The emulators check no IAM; this does, so a
// call a real deploy would deny fails the suite here, naming the function, action and resource.
import { appendFileSync, readFileSync } from 'node:fs';
import { hookSdkSend } from './sdk-hook.js';

export { asFunction } from './sdk-hook.js';

export interface SdkCall {
  fn: string;
  action: string;
  resource: string;
  /** The resource names the handler was given (its environment when it called), to resolve the template's tokens against. */
  env?: Record<string, string>;
}

/** The environment variables through which the construct names resources to the functions. */
const RESOURCE_VARS = [
  'TABLE_NAME',
  'BUCKET_NAME',
  'QUEUE_URL',
  'DEAD_LETTER_QUEUE_URL',
  'PAGE_WORKFLOW_ARN',
  'VECTOR_BUCKET_NAME',
  'VECTOR_INDEX_NAME',
  'TARGETS_SECRET_ARN',
  'EVENT_BUS_NAME',
  'RUN_MACHINE_ARN',
];
function resourceEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of RESOURCE_VARS) if (process.env[k]) out[k] = process.env[k]!;
  return out;
}

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
export const recorded: SdkCall[] = [];

/** Command names of the DynamoDB document client, as the IAM actions the calls need. */
const DOC_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Get: 'GetItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchWrite: 'BatchWriteItem',
  BatchGet: 'BatchGetItem',
  TransactWrite: 'TransactWriteItems',
  TransactGet: 'TransactGetItems',
};
const S3_ACTIONS: Record<string, string> = {
  HeadObject: 'GetObject',
  ListObjectsV2: 'ListBucket',
  ListObjects: 'ListBucket',
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
  AbortMultipartUpload: 'AbortMultipartUpload',
  DeleteObjects: 'DeleteObject',
};
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};
const PREFIX: Record<string, string> = {
  DynamoDB: 'dynamodb',
  S3: 's3',
  SQS: 'sqs',
  SFN: 'states',
  S3Vectors: 's3vectors',
  'Secrets Manager': 'secretsmanager',
  'Bedrock Runtime': 'bedrock',
  EventBridge: 'events',
};

type Input = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The IAM action and resource ARN of one SDK command. */
export function iamOf(serviceId: string, command: string, input: Input): { action: string; resources: string[] } {
  const name = command.replace(/Command$/, '');
  const prefix = PREFIX[serviceId] ?? serviceId.toLowerCase();
  switch (prefix) {
    case 'dynamodb': {
      const table = (t: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${t}`;
      const tables = input.RequestItems ? Object.keys(input.RequestItems as Input) : [str(input.TableName)];
      const index = str(input.IndexName);
      return { action: `dynamodb:${DOC_ACTIONS[name] ?? name}`, resources: tables.map((t) => (index ? `${table(t)}/index/${index}` : table(t))) };
    }
    case 's3': {
      const bucket = str(input.Bucket);
      const action = S3_ACTIONS[name] ?? name;
      // A batch delete is authorized key by key.
      const batch = (input.Delete as { Objects?: Array<{ Key?: string }> } | undefined)?.Objects;
      if (batch) return { action: `s3:${action}`, resources: batch.map((o) => `arn:aws:s3:::${bucket}/${str(o.Key)}`) };
      return { action: `s3:${action}`, resources: [action === 'ListBucket' ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${str(input.Key)}`] };
    }
    case 'sqs': {
      const queue = str(input.QueueUrl).split('/').pop() ?? '';
      return { action: `sqs:${SQS_ACTIONS[name] ?? name}`, resources: [`arn:aws:sqs:${REGION}:${ACCOUNT}:${queue}`] };
    }
    case 'states':
      return { action: `states:${name}`, resources: [str(input.stateMachineArn) || str(input.executionArn)] };
    case 's3vectors': {
      const bucket = `arn:aws:s3vectors:${REGION}:${ACCOUNT}:bucket/${str(input.vectorBucketName)}`;
      return { action: `s3vectors:${name}`, resources: [input.indexName ? `${bucket}/index/${str(input.indexName)}` : bucket] };
    }
    case 'events': {
      const buses = [...new Set(((input.Entries as Input[] | undefined) ?? []).map((e) => str(e.EventBusName) || 'default'))];
      return { action: `events:${name}`, resources: buses.map((b) => `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${b}`) };
    }
    case 'secretsmanager':
      return { action: `secretsmanager:${name}`, resources: [str(input.SecretId)] };
    case 'bedrock':
      // Converse is authorised as InvokeModel, ConverseStream as InvokeModelWithResponseStream: IAM has no Converse action.
      return {
        action: `bedrock:${name.replace(/^ConverseStream$/, 'InvokeModelWithResponseStream').replace(/^Converse$/, 'InvokeModel')}`,
        resources: [`arn:aws:bedrock:${REGION}::foundation-model/${str(input.modelId)}`],
      };
    default:
      return { action: `${prefix}:${name}`, resources: ['*'] };
  }
}

/** Records every SDK call made inside `asFunction`. */
export function recordSdkCalls(): void {
  hookSdkSend(recordCall);
}

/** The calls recorded so far, by what IAM decides on: a call made again adds nothing to check (a long crawl makes millions). */
const recordedKeys = new Set<string>();

function recordCall(call: { fn: string; serviceId: string; command: string; input: Input }, next: () => Promise<unknown>): Promise<unknown> {
  const { action, resources } = iamOf(call.serviceId, call.command, call.input);
  const env = resourceEnv();
  const envKey = JSON.stringify(env ?? {});
  for (const resource of resources) {
    const key = `${call.fn}\u0000${action}\u0000${resource}\u0000${envKey}`;
    if (recordedKeys.has(key)) continue;
    recordedKeys.add(key);
    recorded.push({ fn: call.fn, action, resource, env });
  }
  return next();
}

/** The calls recorded since the last take, each once; recording starts afresh (the next crawl may run under another template). */
export function takeRecorded(): SdkCall[] {
  recordedKeys.clear();
  return recorded.splice(0);
}

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
type Statement = { Effect: 'Allow' | 'Deny'; Action: string | string[]; Resource: unknown };

/**
 * Resolves the intrinsic functions a policy uses to the concrete names the test deployed: each
 * function's environment in the template names its resources by token (`TABLE_NAME: {Ref: …}`),
 * and the harness sets the same variables to the emulators' names, so a token's value is read off
 * the environment the handlers ran with.
 */
function resolver(template: Template, env: NodeJS.ProcessEnv): (v: unknown) => string {
  const ref = new Map<string, string>();
  const attr = new Map<string, string>();
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const vars = (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    for (const [name, token] of Object.entries(vars)) {
      const value = env[name];
      if (!value || typeof token !== 'object' || token === null) continue;
      const t = token as {
        Ref?: string;
        'Fn::GetAtt'?: [string, string];
        'Fn::Select'?: [number, { 'Fn::Split'?: [string, { 'Fn::GetAtt'?: [string, string] }] }];
      };
      if (t.Ref) ref.set(t.Ref, value);
      if (t['Fn::GetAtt']) attr.set(t['Fn::GetAtt'].join('.'), value);
      // A name read off an ARN (`Fn::Select [1, Fn::Split ['/', {GetAtt X.VectorBucketArn}]]`): the bucket's name.
      const fromArn = t['Fn::Select']?.[1]['Fn::Split']?.[1]['Fn::GetAtt'];
      if (fromArn?.[1] === 'VectorBucketArn') attr.set(`${fromArn[0]}.VectorBucketName`, value);
    }
  }
  const arnOf = (id: string, type: string, name: string): string | undefined => {
    const value = ref.get(id);
    if (type === 'AWS::DynamoDB::Table' && name === 'Arn' && value) return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${value}`;
    if (type === 'AWS::S3::Bucket' && name === 'Arn' && value) return `arn:aws:s3:::${value}`;
    if (type === 'AWS::SQS::Queue' && name === 'Arn' && value) return `arn:aws:sqs:${REGION}:${ACCOUNT}:${value.split('/').pop()}`;
    if (type === 'AWS::Events::EventBus' && name === 'Arn' && value) return `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${value}`;
    // No function is told a key's name: a key stands for itself, by its logical id, in policies and in what it encrypts.
    if (type === 'AWS::KMS::Key' && name === 'Arn') return kmsKeyArn(id);
    if (type === 'AWS::S3Vectors::VectorBucket' && name === 'VectorBucketArn') {
      const bucket = attr.get(`${id}.VectorBucketName`) ?? value;
      return bucket ? `arn:aws:s3vectors:${REGION}:${ACCOUNT}:bucket/${bucket}` : undefined;
    }
    if (type === 'AWS::S3Vectors::Index' && name === 'IndexArn') {
      const bucket = env.VECTOR_BUCKET_NAME;
      const index = attr.get(`${id}.IndexName`) ?? value ?? env.VECTOR_INDEX_NAME;
      return bucket && index ? `arn:aws:s3vectors:${REGION}:${ACCOUNT}:bucket/${bucket}/index/${index}` : undefined;
    }
    return attr.get(`${id}.${name}`);
  };
  const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };
  const resolve = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const o = v as Record<string, unknown>;
    if (o.Ref !== undefined) return pseudo[String(o.Ref)] ?? ref.get(String(o.Ref)) ?? `unresolved:${String(o.Ref)}`;
    if (o['Fn::GetAtt']) {
      const [id, name] = o['Fn::GetAtt'] as [string, string];
      return arnOf(id, template.Resources[id]?.Type ?? '', name) ?? `unresolved:${id}.${name}`;
    }
    if (o['Fn::Join']) {
      const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(sep);
    }
    if (o['Fn::Select']) {
      const [index, list] = o['Fn::Select'] as [number, unknown];
      const l = list as Record<string, unknown>;
      if (l['Fn::Split']) {
        const [sep, source] = l['Fn::Split'] as [string, unknown];
        return resolve(source).split(sep)[Number(index)] ?? `unresolved:${JSON.stringify(v)}`;
      }
      return `unresolved:${JSON.stringify(v)}`;
    }
    if (o['Fn::Sub']) return String(o['Fn::Sub']).replace(/\$\{([^}]+)\}/g, (_, k: string) => pseudo[k] ?? ref.get(k) ?? `unresolved:${k}`);
    return `unresolved:${JSON.stringify(v)}`;
  };
  return resolve;
}

const kmsKeyArn = (logicalId: string) => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${logicalId}`;

/** The logical id of the customer-managed key a bucket's or table's properties name, if any. */
function keyOf(props: Record<string, unknown>): string | undefined {
  const rules = (props.BucketEncryption as { ServerSideEncryptionConfiguration?: Array<{ ServerSideEncryptionByDefault?: { KMSMasterKeyID?: unknown } }> })
    ?.ServerSideEncryptionConfiguration;
  const token =
    rules?.[0]?.ServerSideEncryptionByDefault?.KMSMasterKeyID ?? (props.SSESpecification as { KMSMasterKeyId?: unknown } | undefined)?.KMSMasterKeyId;
  return (token as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
}

/**
 * The KMS calls AWS makes as the caller when a call touches a resource under a customer-managed key
 * (S3 and DynamoDB use the caller's permissions on the key): reading an object needs kms:Decrypt,
 * writing one kms:GenerateDataKey; any item read or write of a table needs kms:Decrypt. The emulators
 * encrypt nothing, so these are derived from the template.
 */
export function impliedKmsCalls(template: Template, call: SdkCall, env: Record<string, string> = {}): SdkCall[] {
  const [service, action] = call.action.split(':') as [string, string];
  // The resource the functions are told of (`BUCKET_NAME: {Ref: <id>}`), when the call is on it: its key.
  const find = (variable: string, named: (v: string) => boolean) => {
    if (env[variable] === undefined || !named(env[variable]!)) return undefined;
    for (const r of Object.values(template.Resources)) {
      const token = (r.Properties?.Environment as { Variables?: Record<string, { Ref?: string }> } | undefined)?.Variables?.[variable];
      const target = token?.Ref ? template.Resources[token.Ref] : undefined;
      if (r.Type === 'AWS::Lambda::Function' && target) return keyOf(target.Properties);
    }
    return undefined;
  };
  if (service === 's3' && action !== 'ListBucket') {
    const key = find('BUCKET_NAME', (b) => call.resource.startsWith(`arn:aws:s3:::${b}/`));
    if (!key) return [];
    const needs = /^(PutObject)$/.test(action) ? 'kms:GenerateDataKey' : /^(GetObject)$/.test(action) ? 'kms:Decrypt' : undefined;
    return needs ? [{ ...call, action: needs, resource: kmsKeyArn(key) }] : [];
  }
  if (service === 'dynamodb') {
    const key = find('TABLE_NAME', (t) => call.resource.startsWith(`arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${t}`));
    return key ? [{ ...call, action: 'kms:Decrypt', resource: kmsKeyArn(key) }] : [];
  }
  return [];
}

/** IAM's wildcard match (`*` any run, `?` one character), case-insensitive for actions. */
function matches(pattern: string, value: string, caseless = false): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    caseless ? 'i' : '',
  );
  return re.test(value);
}

/** Each function's statements, by the stage name its log group and id carry (`…Stagesfetchworker…`). */
export function policiesByFunction(template: Template, env: NodeJS.ProcessEnv = process.env): Map<string, Statement[]> {
  const resolve = resolver(template, env);
  const roleOf = new Map<string, string>();
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const role = (r.Properties.Role as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
    const stage = stageOf(id);
    if (role && stage) roleOf.set(role, stage);
  }
  const out = new Map<string, Statement[]>();
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    const roles = (r.Properties.Roles as Array<{ Ref: string }>).map((x) => x.Ref);
    const statements = (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement.map((s) => ({
      ...s,
      Resource: ([] as unknown[]).concat(s.Resource).map(resolve),
    }));
    for (const role of roles) {
      const stage = roleOf.get(role);
      if (stage) out.set(stage, [...(out.get(stage) ?? []), ...statements]);
    }
  }
  return out;
}

const STAGE_IDS: Record<string, string> = {
  initrun: 'init-run',
  discovertargets: 'discover-targets',
  runprogress: 'run-progress',
  finalizerun: 'finalize-run',
  fetchworker: 'fetch-worker',
  extractpage: 'extract-page',
  recordfailure: 'record-failure',
  runended: 'run-ended',
  renderpage: 'render-page',
  summarizepage: 'summarize-page',
  indexpage: 'index-page',
  searchapi: 'search-api',
};

function stageOf(logicalId: string): string | undefined {
  const lower = logicalId.toLowerCase();
  return Object.entries(STAGE_IDS).find(([k]) => lower.includes(k))?.[1];
}

/** Whether the statements allow an action on a resource: an Allow matches and no Deny does. */
export function allowed(statements: Statement[], action: string, resource: string): boolean {
  const hit = (s: Statement) =>
    ([] as string[]).concat(s.Action).some((a) => matches(a, action, true)) &&
    ([] as unknown[]).concat(s.Resource).some((r) => typeof r === 'string' && matches(r, resource));
  return !statements.some((s) => s.Effect === 'Deny' && hit(s)) && statements.some((s) => s.Effect === 'Allow' && hit(s));
}

export interface IamReport {
  checked: number;
  denied: Array<SdkCall & { why: string }>;
}

/**
 * Evaluates the recorded calls against the template (or the one `TRAWL_IAM_TEMPLATE` names), with
 * the KMS calls they imply on resources under a customer-managed key; `only: 'kms'` evaluates just
 * those (a template with keys, checked beside the one the calls were made under).
 */
export function checkCalls(
  template: Template,
  calls: readonly SdkCall[] = recorded,
  env: NodeJS.ProcessEnv = process.env,
  options: { only?: 'kms' } = {},
): IamReport {
  const file = process.env.TRAWL_IAM_TEMPLATE;
  const used = file ? (JSON.parse(readFileSync(file, 'utf8')) as Template) : template;
  const byEnv = new Map<string, Map<string, Statement[]>>();
  const policiesFor = (callEnv: Record<string, string> | undefined) => {
    const key = JSON.stringify(callEnv ?? {});
    let p = byEnv.get(key);
    if (!p) byEnv.set(key, (p = policiesByFunction(used, { ...env, ...callEnv })));
    return p;
  };
  const denied: IamReport['denied'] = [];
  const seen = new Set<string>();
  const all = calls.flatMap((call) => [
    ...(options.only === 'kms' ? [] : [call]),
    ...impliedKmsCalls(used, call, { ...env, ...call.env } as Record<string, string>),
  ]);
  for (const c of all) {
    const key = `${c.fn} ${c.action} ${c.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const statements = policiesFor(c.env).get(c.fn);
    if (!statements) denied.push({ ...c, why: `no role found for ${c.fn} in the template` });
    else if (!allowed(statements, c.action, c.resource)) denied.push({ ...c, why: `${c.fn}'s role does not allow ${c.action} on ${c.resource}` });
  }
  const report = { checked: all.length, denied };
  if (process.env.TRAWL_IAM_REPORT) appendFileSync(process.env.TRAWL_IAM_REPORT, `${JSON.stringify({ checked: report.checked, denied })}\n`);
  return report;
}
