// How many pages of one host render at once in an embedded crawl. A render does not hold its host
// for its whole length: its requests to the host take the host's turns, one at a time with the
// host's fetches and the requests of its other rendering pages. So pages of a host can render side
// by side while the host is asked for one thing at a time: a page whose script hangs or never
// settles no longer holds up the host's other pages.

interface Waiter {
  /** The page's kind (template) when renders of it have not yet gained anything. */
  exploring?: string;
  start: () => void;
}

interface HostSlots {
  running: number;
  /** Kinds with a render under way that will tell whether rendering them gains anything. */
  exploring: Set<string>;
  waiting: Waiter[];
}

/**
 * Render slots per host: up to `perHost` pages of a host at once. Of a kind not yet shown to gain
 * by rendering (`exploring`), one page at a time, and such pages leave a slot to pages of kinds
 * that gained: the decision to go on rendering a kind waits for the outcome of its render, so a
 * host of shells whose renders add nothing costs one render at a time, and a page that hangs does
 * not hold up the host's pages that are worth rendering.
 */
export class HostRenders {
  private readonly hosts = new Map<string, HostSlots>();

  /** Kinds explored at once: one slot of the host's and of the browser's stays for pages of kinds that gained. */
  private readonly exploringAtOnce: number;

  constructor(
    private readonly perHost: number,
    /** Pages the browser renders at once, all hosts together. */
    browserSlots = perHost,
  ) {
    this.exploringAtOnce = Math.max(1, Math.min(perHost, browserSlots) - 1);
  }

  /** Waits for a slot of `host`; the answer gives it back (once). */
  async take(host: string, exploring?: string): Promise<() => void> {
    let slots = this.hosts.get(host);
    if (!slots) this.hosts.set(host, (slots = { running: 0, exploring: new Set(), waiting: [] }));
    const held = slots;
    await new Promise<void>((start) => {
      held.waiting.push({ exploring, start });
      this.pump(held);
    });
    let given = false;
    return () => {
      if (given) return;
      given = true;
      held.running--;
      if (exploring !== undefined) held.exploring.delete(exploring);
      this.pump(held);
      if (held.running === 0 && held.waiting.length === 0 && this.hosts.get(host) === held) this.hosts.delete(host);
    };
  }

  /** Pages of `host` rendering now. */
  running(host: string): number {
    return this.hosts.get(host)?.running ?? 0;
  }

  /** Starts every waiter that fits, in the order they came. */
  private pump(slots: HostSlots): void {
    for (let i = 0; i < slots.waiting.length && slots.running < this.perHost;) {
      const waiter = slots.waiting[i]!;
      if (waiter.exploring !== undefined && (slots.exploring.has(waiter.exploring) || slots.exploring.size >= this.exploringAtOnce)) {
        i++;
        continue;
      }
      slots.waiting.splice(i, 1);
      slots.running++;
      if (waiter.exploring !== undefined) slots.exploring.add(waiter.exploring);
      waiter.start();
    }
  }
}
