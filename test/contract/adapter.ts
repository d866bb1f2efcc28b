import { tempDir } from '../../support/helpers.js';

/** How a contract suite gets a fresh instance of the adapter under test, and lets it go. */
export interface Adapter<T> {
  open(): Promise<T>;
  close(store: T): Promise<void>;
}

/** An adapter whose store lives in a fresh temporary directory, removed when it is closed. */
export function inTempDir<T extends object>(make: (dir: string) => T, close: (store: T) => Promise<void> = async () => {}): Adapter<T> {
  const cleanups = new Map<T, () => void>();
  return {
    async open() {
      const { dir, cleanup } = tempDir();
      const store = make(dir);
      cleanups.set(store, cleanup);
      return store;
    },
    async close(store) {
      await close(store);
      cleanups.get(store)?.();
    },
  };
}

/** Runs `fn` with a fresh instance and always closes it. */
export async function using<T>(adapter: Adapter<T>, fn: (store: T) => Promise<void>): Promise<void> {
  const store = await adapter.open();
  try {
    await fn(store);
  } finally {
    await adapter.close(store);
  }
}
