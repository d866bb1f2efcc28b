import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BlobStore } from '../../ports/index.js';
import { contentHashOf } from '../../ports/content-hash.js';

/** Writes a file whole or not at all: to a temporary name beside it, then renamed. */
export type FileWrite = (file: string, bytes: Uint8Array) => Promise<void>;

/** Directories already made by this thread (a mkdir per body showed up as 3 % of a crawl's CPU). */
const made = new Set<string>();

/** Writes `bytes` to `file` atomically, on the calling thread. */
export function writeFileAtomic(file: string, bytes: Uint8Array): void {
  const dir = dirname(file);
  if (!made.has(dir)) {
    mkdirSync(dir, { recursive: true });
    made.add(dir);
  }
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

/** Where a body's file goes: `blobs/ab/<sha256>`, 256 directories as git keeps its loose objects. */
function blobPath(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash);
}

/** Where data directories before 2026-11-27 kept it: `blobs/ab/cd/<sha256>`, read still, never written. */
function legacyBlobPath(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
}

/** The file holding a body under `root`, in either layout; undefined when there is none. */
export function blobFile(root: string, hash: string): string | undefined {
  for (const file of [blobPath(root, hash), legacyBlobPath(root, hash)]) if (existsSync(file)) return file;
  return undefined;
}

/**
 * Raw bodies as files named by their SHA-256 under `blobs/ab/`. The file system calls cost 0.4 to
 * 0.6 ms a body (file creation and its rename, measured with --cpu-prof in bench:crawl): a crawl
 * hands them to its store's writer thread (`write`), other commands make them here. One level of
 * directories, not two: with 65,536 directories nearly every body of a crawl made one (4,700
 * mkdirs in bench:crawl, up to 3.5 s of the writer thread while the disk was busy).
 */
export class FileBlobStore implements BlobStore {
  constructor(
    private readonly root: string,
    private readonly write: FileWrite = async (file, bytes) => writeFileAtomic(file, bytes),
  ) {
    mkdirSync(root, { recursive: true });
  }

  async put(bytes: Buffer): Promise<string> {
    const hash = contentHashOf(bytes);
    if (!this.has(hash)) await this.writeAs(hash, bytes);
    return hash;
  }

  /** Writes the file of a body whose hash the caller has computed (and found no file for). */
  async writeAs(hash: string, bytes: Uint8Array): Promise<void> {
    await this.write(blobPath(this.root, hash), bytes);
  }

  has(hash: string): boolean {
    return blobFile(this.root, hash) !== undefined;
  }

  async get(hash: string): Promise<Buffer | undefined> {
    const file = blobFile(this.root, hash);
    return file ? readFileSync(file) : undefined;
  }
}

/**
 * The largest body kept in the database; larger ones are files. SQLite's own measurements
 * ("Internal Versus External BLOBs") read blobs under ~100 KB faster from the database than
 * from files; a large one would also pass twice through its log (the WAL, then the checkpoint).
 */
export const SMALL_BODY_BYTES = 256 * 1024;

/** The database's table of small bodies (`body_bytes`), as the data directory's store serves it. */
export interface BodyTable {
  getBody(hash: string): Buffer | undefined;
  /** Stored in order with the store's writes (on its writer thread when it has one); a body stored already is left as it is. */
  putBody(hash: string, bytes: Uint8Array): Promise<void>;
}

/**
 * A data directory's raw bodies: up to SMALL_BODY_BYTES in the database, larger ones as files.
 * A body an older trawl kept as a file is read there and not stored again.
 */
export class LocalBlobStore implements BlobStore {
  constructor(
    private readonly table: BodyTable,
    private readonly files: FileBlobStore,
  ) {}

  async put(bytes: Buffer): Promise<string> {
    const hash = contentHashOf(bytes);
    // No lookup in the table first: its insert ignores a body it holds already (rare: the same
    // bytes at another URL), where a read per body took ~95 ms of the crawl thread in bench:crawl.
    if (this.files.has(hash)) return hash;
    if (bytes.length > SMALL_BODY_BYTES) await this.files.writeAs(hash, bytes);
    else await this.table.putBody(hash, bytes);
    return hash;
  }

  async get(hash: string): Promise<Buffer | undefined> {
    return this.table.getBody(hash) ?? (await this.files.get(hash));
  }
}
