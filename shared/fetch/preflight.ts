import { isIP } from 'node:net';
import { AddressRefusedError, UsageError } from '../errors.js';
import { AddressGuard, isMetadataEndpoint, type Resolver } from './address-guard.js';

/** What kind of address a refused host has, in the words a user knows. */
function kindOf(address: string): string {
  if (/^127\.|^::1$|^::ffff:127\./.test(address) || address === 'localhost') return 'a loopback address (this machine)';
  if (/^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|f[cd])/i.test(address)) return 'a private (intranet) address';
  if (/^169\.254\.|^fe80:/i.test(address)) return 'a link-local address';
  return 'a private or reserved address';
}

/**
 * Checks, before anything is crawled or fetched, that the address guard will let the URL's host
 * through, so a first try on a local or intranet site fails at once with the reason and the flag
 * that lifts it, instead of ending with nothing stored and a robots.txt message. A name that does
 * not resolve is said as such (or passed on, for a crawl to record, with `unresolved: 'pass'`). Metadata endpoints are refused whatever the flags say.
 *
 * @throws UsageError naming the URL, the address and `--allow-private-network` (library: `allowPrivateNetwork: true`)
 */
export async function preflight(url: string, options: { allowPrivateNetwork: boolean; resolver?: Resolver; unresolved?: 'throw' | 'pass' }): Promise<void> {
  const { hostname } = new URL(url);
  const bare = hostname.replace(/^\[|\]$/g, '');
  const guard = new AddressGuard(options);
  try {
    guard.checkHostLiteral(hostname);
    if (isIP(bare) === 0) await guard.resolve(bare);
  } catch (err) {
    if (err instanceof AddressRefusedError) {
      if (err.reason === 'metadata' || isMetadataEndpoint(bare))
        throw new UsageError(`refused ${url}: ${err.message.replace(/^refused [^:]+: /, '')}`, { cause: err });
      const resolved = /resolves to ([^,\s]+)/.exec(err.message)?.[1] ?? bare;
      throw new UsageError(
        `refused ${url}: ${hostname}${resolved !== bare ? ` resolves to ${resolved},` : ' is'} ${kindOf(resolved)}, and trawl does not reach private, loopback or link-local addresses unless asked: pass --allow-private-network (library: allowPrivateNetwork: true) to crawl a site on this machine or your intranet`,
        { cause: err },
      );
    }
    // A crawl records a seed it cannot resolve as a failed fetch (and goes on with its other seeds).
    if (options.unresolved === 'pass') return;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot reach ${url}: the name ${hostname} does not resolve (DNS: ${code ?? (err as Error).message}); check the spelling or your network`,
      {
        cause: err,
      },
    );
  }
}
