import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { AddressRefusedError } from '../errors.js';

/** Ranges a public crawler must never connect to: loopback, private, link-local, CGNAT, metadata, ULA, mapped. */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

// Two lists: Node's BlockList matches IPv4 addresses against ::ffff:0:0/96 rules too.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blockedV4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blockedV6.addSubnet(net, prefix, 'ipv6');

/** True when an IP literal is loopback, private, link-local, CGNAT, cloud metadata, unique-local or IPv4-mapped. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, 'ipv4');
  if (family === 6) {
    const lower = address.toLowerCase();
    // Mapped/compatible forms written with a dotted quad are caught by ::ffff:0:0/96 too, but
    // BlockList needs the hex form; refuse any dotted IPv6 outright.
    if (lower.includes('.')) return true;
    return blockedV6.check(lower, 'ipv6');
  }
  return true;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

export interface AddressGuardOptions {
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves host names and refuses blocked addresses. Its `lookup` is handed to the socket,
 * so the connection goes to exactly the address that was checked (no DNS-rebinding window).
 */
export class AddressGuard {
  private readonly allowPrivate: boolean;
  private readonly resolver: Resolver;

  constructor(options: AddressGuardOptions) {
    this.allowPrivate = options.allowPrivateNetwork;
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Checks a URL host before connecting: IP literals here (sockets skip lookup for them). */
  checkHostLiteral(hostname: string): void {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivate && isIP(bare) && isBlockedAddress(bare)) {
      throw new AddressRefusedError(`refused ${bare}: a private, loopback or metadata address (use --allow-private-network for intranets and tests)`);
    }
  }

  /** Resolves and checks; resolves to the one address the socket must use. */
  async resolve(hostname: string): Promise<LookupAddress> {
    const addresses = await this.resolver(hostname);
    if (addresses.length === 0) throw new AddressRefusedError(`no address for ${hostname}`);
    if (!this.allowPrivate) {
      const bad = addresses.find((a) => isBlockedAddress(a.address));
      if (bad) {
        throw new AddressRefusedError(`refused ${hostname}: resolves to ${bad.address}, a private, loopback or metadata address (use --allow-private-network for intranets and tests)`);
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
