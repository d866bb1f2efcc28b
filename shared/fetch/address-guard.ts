import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { AddressRefusedError } from '../errors.js';

/** Ranges a public crawler must never connect to: loopback, private, link-local, CGNAT, metadata, reserved. */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/**
 * IPv6 ranges refused whatever they contain: unspecified, loopback and IPv4-compatible (::/96),
 * IPv4-mapped, local-use NAT64 (RFC 8215), discard, documentation, unique-local, link-local,
 * site-local, multicast. Forms that embed an IPv4 address (NAT64 64:ff9b::/96, 6to4 2002::/16,
 * Teredo 2001::/32, IPv4-translated ::ffff:0:0:0/96) are checked by the address they embed.
 */
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

// Two lists: Node's BlockList matches IPv4 addresses against ::ffff:0:0/96 rules too.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blockedV4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blockedV6.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (zone id dropped, dotted-quad tail allowed), or undefined. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    if (isIP(quad[1]!) !== 4) return undefined;
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -quad[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, g] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined;
    const v = parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  }
  return bytes;
}

const v4 = (b: Uint8Array, at: number, xor = 0) => [0, 1, 2, 3].map((i) => b[at + i]! ^ xor).join('.');
const startsWith = (b: Uint8Array, prefix: number[]) => prefix.every((v, i) => b[i] === v);

/** The IPv4 addresses an IPv6 address carries (NAT64, 6to4, Teredo server and client, IPv4-translated). */
export function embeddedIPv4(b: Uint8Array): string[] {
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return [v4(b, 12)];
  if (startsWith(b, [0x20, 0x02])) return [v4(b, 2)];
  if (startsWith(b, [0x20, 0x01, 0, 0])) return [v4(b, 4), v4(b, 12, 0xff)];
  if (startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return [v4(b, 12)];
  return [];
}

/** True when an IP literal is loopback, private, link-local, CGNAT, cloud metadata, reserved, or an IPv6 form of one. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (!bytes) return true;
  const hex = Array.from({ length: 8 }, (_, i) => ((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!).toString(16)).join(':');
  if (blockedV6.check(hex, 'ipv6')) return true;
  return embeddedIPv4(bytes).some((a) => blockedV4.check(a, 'ipv4'));
}

/**
 * Cloud instance-metadata and container-credential endpoints (EC2/ECS/EKS Pod Identity, GCP, Azure
 * via 169.254.169.254, Alibaba): refused in every form even with `--allow-private-network`. An
 * intranet crawl needs private hosts, never the credentials of the machine it runs on.
 */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200']);
const METADATA_V6 = ['fd00:ec2::254', 'fd00:ec2::23'].map((a) => ipv6Bytes(a)!.join(','));
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** True for a metadata endpoint: its IPv4 address, an IPv6 form that embeds it (mapped, NAT64, …), its IPv6 address, or its well-known name. */
export function isMetadataEndpoint(hostOrAddress: string): boolean {
  const bare = hostOrAddress
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const family = isIP(bare);
  if (family === 4) return METADATA_V4.has(bare);
  if (family === 6) {
    const bytes = ipv6Bytes(bare);
    if (!bytes) return false;
    const mapped = startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? [v4(bytes, 12)] : [];
    return METADATA_V6.includes(bytes.join(',')) || [...mapped, ...embeddedIPv4(bytes)].some((a) => METADATA_V4.has(a));
  }
  return METADATA_NAMES.has(bare);
}

const metadataRefusal = (what: string) =>
  new AddressRefusedError(`refused ${what}: a cloud metadata or credential endpoint (never reachable, even with --allow-private-network)`, {
    reason: 'metadata',
  });

/** True for a loopback address: 127.0.0.0/8, ::1, or an IPv6 form that embeds a 127.x address. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(bare);
  if (!bytes) return false;
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return true;
  const mapped = startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? [v4(bytes, 12)] : [];
  return [...mapped, ...embeddedIPv4(bytes)].some((a) => a.startsWith('127.'));
}

const runtimeApiRefusal = (what: string) =>
  new AddressRefusedError(
    `refused ${what}: a loopback address inside AWS Lambda, where it is the Lambda Runtime API's (never reachable, even with allowPrivateNetwork)`,
    { reason: 'metadata' },
  );

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

export interface AddressGuardOptions {
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
  /**
   * Refuse loopback whatever `allowPrivateNetwork` says: inside AWS Lambda loopback serves the
   * Runtime API (`AWS_LAMBDA_RUNTIME_API`, 127.0.0.1:9001), which hands out invocation payloads.
   * Defaults to whether that variable is set.
   */
  refuseLoopback?: boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves host names and refuses blocked addresses. Its `lookup` is handed to the socket,
 * so the connection goes to exactly the address that was checked (no DNS-rebinding window).
 */
export class AddressGuard {
  private readonly allowPrivate: boolean;
  private readonly resolver: Resolver;
  private readonly refuseLoopback: boolean;

  constructor(options: AddressGuardOptions) {
    this.allowPrivate = options.allowPrivateNetwork;
    this.resolver = options.resolver ?? systemResolver;
    this.refuseLoopback = options.refuseLoopback ?? Boolean(process.env.AWS_LAMBDA_RUNTIME_API);
  }

  /** Checks a URL host before connecting: IP literals here (sockets skip lookup for them). */
  checkHostLiteral(hostname: string): void {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (isMetadataEndpoint(bare)) throw metadataRefusal(bare);
    if (this.refuseLoopback && (isLoopbackAddress(bare) || bare.toLowerCase() === 'localhost')) throw runtimeApiRefusal(bare);
    if (!this.allowPrivate && isIP(bare) && isBlockedAddress(bare)) {
      throw new AddressRefusedError(`refused ${bare}: a private, loopback or metadata address (use --allow-private-network for intranets and tests)`);
    }
  }

  /** Resolves and checks; resolves to the one address the socket must use. */
  async resolve(hostname: string): Promise<LookupAddress> {
    if (isMetadataEndpoint(hostname)) throw metadataRefusal(hostname);
    const addresses = await this.resolver(hostname);
    if (addresses.length === 0) throw new AddressRefusedError(`no address for ${hostname}`);
    const meta = addresses.find((a) => isMetadataEndpoint(a.address));
    if (meta) throw metadataRefusal(`${hostname} (resolves to ${meta.address})`);
    const loopback = this.refuseLoopback ? addresses.find((a) => isLoopbackAddress(a.address)) : undefined;
    if (loopback) throw runtimeApiRefusal(`${hostname} (resolves to ${loopback.address})`);
    if (!this.allowPrivate) {
      const bad = addresses.find((a) => isBlockedAddress(a.address));
      if (bad) {
        throw new AddressRefusedError(
          `refused ${hostname}: resolves to ${bad.address}, a private, loopback or metadata address (use --allow-private-network for intranets and tests)`,
        );
      }
    }
    return addresses[0]!;
  }

  /** A `net.connect` lookup function bound to this guard. */
  readonly lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    this.resolve(hostname).then(
      (addr) => (options.all ? callback(null, [addr]) : callback(null, addr.address, addr.family)),
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
