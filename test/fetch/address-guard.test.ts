import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressGuard, isBlockedAddress } from '../../shared/fetch/address-guard.js';
import { HttpFetcher } from '../../shared/fetch/http-fetcher.js';
import { AddressRefusedError, NonRetryableFetchError } from '../../shared/errors.js';
import { serve } from '../../support/helpers.js';

test('blocks loopback, private, link-local, CGNAT, metadata, ULA and mapped addresses', () => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::',
  ]) {
    assert.equal(isBlockedAddress(ip), true, ip);
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1']) assert.equal(isBlockedAddress(ip), false, ip);
});

test('refuses every IPv6 form that embeds a private or loopback IPv4 address', () => {
  const forms: Array<[string, string]> = [
    ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
    ['::127.0.0.1', 'IPv4-compatible, dotted'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address'],
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 (XORed)'],
    ['2001:0:a00:1::1', 'Teredo, server 10.0.0.1'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::10.1.2.3', 'NAT64 of 10.1.2.3, dotted'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['::1', 'loopback'],
  ];
  for (const [ip, what] of forms) assert.equal(isBlockedAddress(ip), true, `${what}: ${ip}`);
  // The same forms around public addresses stay allowed: a DNS64 network answers NAT64 for every site.
  for (const ip of ['64:ff9b::5db8:d822', '2002:5db8:d822::1', '2001:0:4136:e378:8000:63bf:a247:27dd', '2a00:1450:4001:80b::200e'])
    assert.equal(isBlockedAddress(ip), false, ip);
  for (const bad of ['1::2::3', '12345::', 'not-an-ip']) assert.equal(isBlockedAddress(bad), true, bad);
});

test('refuses a host name that resolves to a private address', async () => {
  const guard = new AddressGuard({ allowPrivateNetwork: false, resolver: async () => [{ address: '10.0.0.5', family: 4 }] });
  await assert.rejects(
    guard.resolve('intranet.example'),
    (err: unknown) => err instanceof AddressRefusedError && /10\.0\.0\.5/.test(err.message) && /--allow-private-network/.test(err.message),
  );
});

test('refuses when any resolved address is private', async () => {
  const guard = new AddressGuard({
    allowPrivateNetwork: false,
    resolver: async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
  });
  await assert.rejects(guard.resolve('rebind.example'), AddressRefusedError);
});

test('connects to the address it checked, so DNS cannot rebind in between', async () => {
  const server = await serve((_req, res) => res.end('hello'));
  let lookups = 0;
  const resolver = async () => {
    lookups++;
    // First answer is the checked one; a rebinding resolver would answer differently later.
    return lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
  };
  const fetcher = new HttpFetcher({
    userAgent: 'trawl-test',
    allowPrivateNetwork: true,
    maxBodyBytes: 1024,
    connectTimeoutMs: 1000,
    totalTimeoutMs: 2000,
    resolver,
  });
  try {
    const port = new URL(server.origin).port;
    const res = await fetcher.fetch({ url: `http://rebind.test:${port}/`, kind: 'page' });
    assert.equal(res.status, 200);
    assert.equal(lookups, 1);
  } finally {
    await fetcher.close();
    await server.close();
  }
});

test('the fetcher refuses private IP literals and non-http schemes unless allowed', async () => {
  const fetcher = new HttpFetcher({ userAgent: 'trawl-test', allowPrivateNetwork: false, maxBodyBytes: 1024, connectTimeoutMs: 500, totalTimeoutMs: 1000 });
  try {
    await assert.rejects(fetcher.fetch({ url: 'http://127.0.0.1:9/', kind: 'page' }), AddressRefusedError);
    await assert.rejects(fetcher.fetch({ url: 'http://[::ffff:169.254.169.254]/', kind: 'page' }), AddressRefusedError);
    await assert.rejects(fetcher.fetch({ url: 'ftp://example.com/', kind: 'page' }), NonRetryableFetchError);
    const viaName = new HttpFetcher({
      userAgent: 't',
      allowPrivateNetwork: false,
      maxBodyBytes: 1024,
      connectTimeoutMs: 500,
      totalTimeoutMs: 1000,
      resolver: async () => [{ address: '169.254.169.254', family: 4 }],
    });
    await assert.rejects(viaName.fetch({ url: 'http://metadata.test/latest/', kind: 'page' }), AddressRefusedError);
    await viaName.close();
  } finally {
    await fetcher.close();
  }
});

test("inside AWS Lambda loopback is the Runtime API's: refused even with allowPrivateNetwork, by literal, by name and in IPv6 forms", async () => {
  let asked = 0;
  // A stand-in for the Runtime API on loopback: it would hand out the next invocation's payload.
  const runtime = await serve((_req, res) => {
    asked++;
    res.end('{"payload":"the next invocation"}');
  });
  const port = new URL(runtime.origin).port;
  const options = { userAgent: 't', allowPrivateNetwork: true, maxBodyBytes: 1024, connectTimeoutMs: 500, totalTimeoutMs: 2000 };
  const before = process.env.AWS_LAMBDA_RUNTIME_API;
  process.env.AWS_LAMBDA_RUNTIME_API = `127.0.0.1:${port}`;
  const inLambda = new HttpFetcher(options);
  const byName = new HttpFetcher({ ...options, resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
  try {
    for (const url of [
      `${runtime.origin}/2018-06-01/runtime/invocation/next`,
      `http://localhost:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://127.1.2.3:${port}/`,
    ]) {
      await assert.rejects(
        inLambda.fetch({ url, kind: 'page' }),
        (e: unknown) => e instanceof AddressRefusedError && /Lambda Runtime API/.test(e.message),
        url,
      );
    }
    await assert.rejects(byName.fetch({ url: `http://runtime.test:${port}/`, kind: 'page' }), /resolves to 127\.0\.0\.1.*Runtime API/);
    assert.equal(asked, 0, 'the Runtime API was never asked');
    // Private addresses other than loopback stay reachable for an intranet crawl in a VPC.
    assert.doesNotThrow(() => new AddressGuard({ allowPrivateNetwork: true }).checkHostLiteral('10.1.2.3'));
  } finally {
    await inLambda.close();
    await byName.close();
    if (before === undefined) delete process.env.AWS_LAMBDA_RUNTIME_API;
    else process.env.AWS_LAMBDA_RUNTIME_API = before;
  }
  // Outside Lambda, allowPrivateNetwork reaches loopback as before.
  const outside = new HttpFetcher(options);
  try {
    const res = await outside.fetch({ url: `${runtime.origin}/`, kind: 'page' });
    assert.equal(res.status, 200);
    assert.equal(asked, 1);
  } finally {
    await outside.close();
    await runtime.close();
  }
});
