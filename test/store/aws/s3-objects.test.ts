// An S3 object whose body is cut off while it streams is read again: the SDK retries only what
// fails before the answer. A loopback server answers GetObject as S3 does and resets the
// connection halfway through the body as many times as told.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awsClients } from '../../../shared/store/aws/clients.js';
import { S3Objects } from '../../../shared/store/aws/s3-store.js';

async function cuttingS3(cuts: number) {
  const body = Buffer.alloc(64 * 1024, 7);
  let asked = 0;
  const server = createServer((req, res) => {
    asked += 1;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length), etag: '"e"' });
    if (asked <= cuts) {
      res.write(body.subarray(0, body.length / 2), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const clients = awsClients({
    s3: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  return { objects: new S3Objects(clients.s3, 'bucket'), body, asked: () => asked, close: () => new Promise((r) => server.close(r)) };
}

test('a body cut off while it streams is read again, and the object comes back whole', async () => {
  const s3 = await cuttingS3(2);
  try {
    const got = await s3.objects.get('search/text/s1/ids.bin');
    assert.ok(got && got.equals(s3.body), 'the whole body');
    assert.equal(s3.asked(), 3, 'two cut-off reads, then a whole one');
  } finally {
    await s3.close();
  }
});

test('a body cut off on every read fails after three reads, with the connection’s error', async () => {
  const s3 = await cuttingS3(Infinity);
  try {
    await assert.rejects(s3.objects.get('k'), (err: Error & { code?: string }) => err.message === 'aborted' || err.code === 'ECONNRESET');
    assert.equal(s3.asked(), 3);
  } finally {
    await s3.close();
  }
});
