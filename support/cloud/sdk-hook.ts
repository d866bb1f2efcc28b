// One seam over every AWS SDK call the handlers make in the cloud suites: the SDK's Client.send
// (both module formats) runs the installed hooks around each command sent inside `asFunction`.
// The IAM contract (iam.ts) and the cost meter (cost-meter.ts) are such hooks.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { Client as EsmClient } from '@smithy/core/client';

export type SdkInput = Record<string, unknown>;

/** One command a handler sends: which function, which service (the SDK's serviceId), which command. */
export interface SdkSend {
  fn: string;
  /** Which run of a handler sent it: one number per `asFunction` call. */
  invocation: number;
  serviceId: string;
  command: string;
  input: SdkInput;
}

/** Runs around a command; calls `next` to send it (and may change `send.input` first). */
export type SdkHook = (send: SdkSend, next: () => Promise<unknown>) => Promise<unknown>;

const running = new AsyncLocalStorage<{ fn: string; invocation: number }>();
const hooks: SdkHook[] = [];
let patched = false;
let invocations = 0;

/** Runs a handler with its SDK calls attributed to the function (its stage name, as in lib/stages.ts). */
export function asFunction<T>(fn: string, body: () => Promise<T>): Promise<T> {
  return running.run({ fn, invocation: ++invocations }, body);
}

/** The function whose handler is running here, if any. */
export function currentFunction(): string | undefined {
  return running.getStore()?.fn;
}

type Sendable = { config: { serviceId?: string } };
type Command = { input: SdkInput; constructor: { name: string } };

/** Removes a hook added by hookSdkSend. */
export function unhookSdkSend(hook: SdkHook): void {
  const i = hooks.indexOf(hook);
  if (i >= 0) hooks.splice(i, 1);
}

/** Adds a hook around every command sent inside `asFunction` (installed once per hook). */
export function hookSdkSend(hook: SdkHook): void {
  if (!hooks.includes(hook)) hooks.push(hook);
  if (patched) return;
  patched = true;
  const cjs = createRequire(import.meta.url)('@smithy/core/client') as { Client: typeof EsmClient };
  for (const Client of new Set([EsmClient, cjs.Client])) {
    const send = Client.prototype.send as (this: Sendable, command: Command, ...rest: unknown[]) => Promise<unknown>;
    Client.prototype.send = function (this: Sendable, command: Command, ...rest: unknown[]) {
      const handler = running.getStore();
      // Callback-style sends (none in trawl) and calls outside a handler go straight through.
      if (!handler || rest.some((r) => typeof r === 'function')) return send.call(this, command, ...rest);
      const call: SdkSend = {
        fn: handler.fn,
        invocation: handler.invocation,
        serviceId: this.config.serviceId ?? 'unknown',
        command: command.constructor.name.replace(/Command$/, ''),
        input: command.input ?? {},
      };
      const chain = (i: number): Promise<unknown> => {
        if (i === hooks.length) {
          command.input = call.input;
          return send.call(this, command, ...rest);
        }
        return hooks[i]!(call, () => chain(i + 1));
      };
      return chain(0);
    } as typeof Client.prototype.send;
  }
}
