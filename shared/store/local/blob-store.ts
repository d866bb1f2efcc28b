import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../ports/index.js';

/** Raw bodies as files named by their SHA-256 under `blobs/ab/cd/`; written to a temp name, then renamed. */
export class FileBlobStore implements BlobStore {
  /** Fan-out directories already made (mkdir per body showed up as 3 % of a crawl's CPU). */
  private readonly made = new Set<string>();

  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true });
  }

  private pathOf(hash: string): { dir: string; file: string } {
    const dir = join(this.root, hash.slice(0, 2), hash.slice(2, 4));
    return { dir, file: join(dir, hash) };
  }

  async put(bytes: Buffer): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const { dir, file } = this.pathOf(hash);
    if (existsSync(file)) return hash;
    if (!this.made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.made.add(dir);
    }
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
    return hash;
  }

  async get(hash: string): Promise<Buffer | undefined> {
    const { file } = this.pathOf(hash);
    return existsSync(file) ? readFileSync(file) : undefined;
  }
}
