import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ObjectStore } from '../../ports/index.js';
import { archiveKeys } from '../../ports/archive-keys.js';

/** Objects as files under a root directory, laid out by `archiveKeys` (the embedded ObjectStore). */
export class FileObjects implements ObjectStore {
  constructor(private readonly root: string) {}

  private write(key: string, body: Buffer | string): string {
    const file = join(this.root, key);
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, body);
    renameSync(tmp, file);
    return key;
  }

  async putWarc(runId: number, name: string, body: Buffer): Promise<string> {
    return this.write(archiveKeys.warc(runId, name), body);
  }

  async putExtracted(urlId: string, snapshot: string, doc: unknown): Promise<string> {
    return this.write(archiveKeys.extracted(urlId, snapshot), JSON.stringify(doc));
  }

  async putReport(name: string, doc: unknown): Promise<string> {
    return this.write(archiveKeys.report(name), JSON.stringify(doc, null, 2));
  }

  async putMarkdownReport(name: string, text: string): Promise<string> {
    return this.write(archiveKeys.markdownReport(name), text);
  }

  async get(key: string): Promise<Buffer | undefined> {
    const file = join(this.root, key);
    if (key.split('/').includes('..') || !existsSync(file)) return undefined;
    return readFileSync(file);
  }

  async getRange(key: string, offset: number, length: number): Promise<Buffer | undefined> {
    const file = join(this.root, key);
    if (key.split('/').includes('..') || !existsSync(file)) return undefined;
    const fd = openSync(file, 'r');
    try {
      const bytes = Buffer.alloc(length);
      return bytes.subarray(0, readSync(fd, bytes, 0, length, offset));
    } finally {
      closeSync(fd);
    }
  }

  async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
    const dir = prefix.endsWith('/') ? prefix : dirname(prefix);
    const root = join(this.root, dir);
    if (!existsSync(root)) return [];
    const keys = (readdirSync(root, { recursive: true }) as string[]).map((f) => `${dir.replace(/\/$/, '')}/${f}`).filter((k) => k.startsWith(prefix));
    return keys
      .filter((k) => statSync(join(this.root, k)).isFile())
      .sort()
      .map((key) => ({ key, size: statSync(join(this.root, key)).size }));
  }

  async *scan(prefix: string, startAfter?: string): AsyncIterable<Array<{ key: string; size: number }>> {
    const all = (await this.list(prefix)).filter((o) => startAfter === undefined || o.key > startAfter);
    for (let i = 0; i < all.length; i += 1000) yield all.slice(i, i + 1000);
  }

  stream(key: string): Readable {
    return createReadStream(join(this.root, key));
  }

  async putStream(key: string, body: Readable, _contentType: string): Promise<void> {
    const file = join(this.root, key);
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await pipeline(body, createWriteStream(tmp));
    renameSync(tmp, file);
  }

  async deleteMany(keys: string[]): Promise<void> {
    for (const key of keys) if (!key.split('/').includes('..')) rmSync(join(this.root, key), { force: true });
  }
}
