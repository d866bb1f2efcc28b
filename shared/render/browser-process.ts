import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../util/process-alive.js';

// The browser as a process: the flags it starts with, and the profiles a killed crawler left.

/** Prefix of a browser profile directory in the temp directory, followed by the crawler's pid. */
export const PROFILE_PREFIX = 'trawl-chrome-';

/**
 * Chromium features turned off (the driver adds its own to the list). The first group is what
 * browser drivers turn off for their driving to work, kept whatever the driver's own list is.
 */
const DISABLED_FEATURES = [
  // drivers'
  'AcceptCHFrame',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'DialMediaRouteProvider',
  'GlobalMediaControls',
  'HttpsUpgrades',
  'LensOverlay',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AutoDeElevate',
  'RenderDocument',
  // trawl's: nothing the crawl did not ask for leaves the browser
  'Translate',
  'MediaRouter',
  'OptimizationHints',
  'AutofillServerCommunication',
  'InterestFeedContentSuggestions',
  'NetworkPrediction',
  'Prerender2',
  'SpeculationRulesPrefetchProxy',
  'DnsOverHttps',
];

/** The driver's default flags trawl leaves out: a page opens no popup. */
export const DRIVER_DEFAULTS_REFUSED = ['--disable-popup-blocking'];

/** Flags for a headless browser that runs as root, offline, leaving nothing behind: no sandbox, GPU, first run or background traffic. */
export function launchArgs(memoryMb: number, singleProcess: boolean): string[] {
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
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    // Every byte goes through the guard proxy: no UDP the proxy cannot carry (WebRTC's
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
    ...(singleProcess ? ['--single-process', '--no-zygote'] : []),
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

/**
 * The pid of the browser started by this process with the profile `profile` (Linux: read from
 * /proc; elsewhere undefined, and the driver alone ends the browser): where the driver does not tell it.
 */
export function browserPid(profile: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const flag = `--user-data-dir=${profile}`;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const parent = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]);
      if (parent === process.pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(flag)) return Number(name);
    } catch {
      // the process ended while we looked
    }
  }
  return undefined;
}

/** Kills a process at once; one already gone is not an error. */
export function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves when the process `pid` is gone (polled: the driver, not trawl, holds the child process). */
export async function exited(pid: number): Promise<void> {
  while (processAlive(pid)) await new Promise((r) => setTimeout(r, 50));
}
