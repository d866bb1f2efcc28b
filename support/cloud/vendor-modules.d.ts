// Types for the two emulators that ship without them (only what the tests use).
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number; path?: string }): Server;
}
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  import type { Server } from 'node:http';
  export default class S3rver {
    constructor(options: { port?: number; address?: string; silent?: boolean; directory: string; configureBuckets?: Array<{ name: string }> });
    run(): Promise<AddressInfo>;
    httpServer: Server;
    /** Its FilesystemStore (support/cloud/s3rver-atomic.ts types the part it uses). */
    store: unknown;
    close(): Promise<void>;
  }
}
