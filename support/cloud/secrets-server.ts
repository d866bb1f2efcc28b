// A local stand-in for AWS Secrets Manager speaking its wire protocol (JSON 1.1, `X-Amz-Target:
// secretsmanager.GetSecretValue`), for the Discover function's keys: no emulator of it runs here.
import { readBody, serve } from '../helpers.js';

export interface SecretsServer {
  origin: string;
  /** Sets a secret's value (a string, as SecretString holds it); returns its ARN. */
  put(name: string, value: string): string;
  /** GetSecretValue calls served. */
  reads: number;
  close(): Promise<void>;
}

export async function startSecretsServer(): Promise<SecretsServer> {
  const secrets = new Map<string, { arn: string; name: string; value: string; version: number }>();
  const state = { reads: 0 };
  const server = await serve(async (req, res) => {
    const reply = (status: number, payload: unknown) =>
      void res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
    const text = await readBody(req);
    if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue')
      return reply(400, { __type: 'UnknownOperationException', message: `unknown operation ${String(req.headers['x-amz-target'])}` });
    state.reads++;
    const { SecretId } = JSON.parse(text) as { SecretId: string };
    const secret = [...secrets.values()].find((s) => s.arn === SecretId || s.name === SecretId);
    if (!secret) return reply(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
    reply(200, {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: `v${secret.version}`,
      SecretString: secret.value,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Date.now() / 1000,
    });
  });
  return {
    origin: server.origin,
    get reads() {
      return state.reads;
    },
    set reads(n: number) {
      state.reads = n;
    },
    put(name, value) {
      const arn = `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`;
      const version = (secrets.get(name)?.version ?? 0) + 1;
      secrets.set(name, { arn, name, value, version });
      return arn;
    },
    close: () => server.close(),
  };
}
