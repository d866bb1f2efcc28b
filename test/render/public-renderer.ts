import { ChromiumRenderer } from '../../shared/render/chromium.js';

/**
 * A renderer with the address guard on, for which every name resolves to a public address no test
 * connects to: a page looks public, and only what its scripts name as loopback literals points at
 * a test's canary.
 */
export function publicRenderer(): ChromiumRenderer {
  return new ChromiumRenderer({
    userAgent: 'trawl-test',
    concurrency: 1,
    timeoutMs: 15_000,
    settleMs: 1_500,
    maxRequests: 50,
    recycleAfter: 100,
    memoryMb: 256,
    allowPrivateNetwork: false,
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
  });
}
