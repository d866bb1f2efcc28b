import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../util/process-alive.js';

// The browser as a process: the flags it starts with, and the profiles a killed crawler left.

/** Prefix of a browser profile directory in the temp directory, followed by the crawler's pid. */
export const PROFILE_PREFIX = 'trawl-chrome-';

/** Flags for a headless browser that runs as root, offline, leaving nothing behind: no sandbox, GPU, first run or background traffic. */
export function launchArgs(memoryMb: number, inLambda: boolean): string[] {
  return [
    '--no-sandbox',
    '--disable-setuid-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-sync',
    '--disable-breakpad',
    '--disable-domain-reliability',
    '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,InterestFeedContentSuggestions,NetworkPrediction,Prerender2,SpeculationRulesPrefetchProxy,DnsOverHttps',
    // Every byte goes through the guard proxy (issue 28): no UDP the proxy cannot carry (WebRTC's
    // STUN, QUIC), no DNS or connections made ahead of a request, no new windows.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--dns-prefetch-disable',
    '--block-new-web-contents',
    '--metrics-recording-only',
    '--mute-audio',
    '--no-pings',
    '--hide-scrollbars',
    '--password-store=basic',
    '--use-mock-keychain',
    `--js-flags=--max-old-space-size=${memoryMb}`,
    // Lambda allows no zygote and no extra sandboxed processes.
    ...(inLambda ? ['--single-process', '--no-zygote'] : []),
  ];
}

/** Profile directories left by a process that was killed: removed before the next browser starts. */
export function sweepStaleProfiles(dir = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = new RegExp(`^${PROFILE_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
