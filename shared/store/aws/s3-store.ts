import { GetObjectCommand, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import type { BlobStore, ObjectStore } from '../ports/index.js';
import { archiveKeys } from '../archive-keys.js';
import { contentHashOf } from '../content-hash.js';

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);
}

/** Objects in the crawl bucket under the key layout of `archiveKeys`. */
export class S3Objects implements ObjectStore {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
  ) {}

  async putWarc(runId: number, name: string, body: Buffer): Promise<string> {
    const key = archiveKeys.warc(runId, name);
    await this.put(key, body, 'application/warc');
    return key;
  }

  async putExtracted(urlId: string, snapshot: string, doc: unknown): Promise<string> {
    const key = archiveKeys.extracted(urlId, snapshot);
    await this.put(key, JSON.stringify(doc), 'application/json');
    return key;
  }

  async putReport(name: string, doc: unknown): Promise<string> {
    const key = archiveKeys.report(name);
    await this.put(key, JSON.stringify(doc, null, 2), 'application/json');
    return key;
  }

  async putMarkdownReport(name: string, text: string): Promise<string> {
    const key = archiveKeys.markdownReport(name);
    await this.put(key, text, 'text/markdown; charset=utf-8');
    return key;
  }

  async put(key: string, body: Buffer | string, contentType: string, onlyIfAbsent = false): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, IfNoneMatch: onlyIfAbsent ? '*' : undefined }),
      );
    } catch (err) {
      // Content-addressed writes: someone stored these bytes first, which is the same outcome.
      if (onlyIfAbsent && err instanceof S3ServiceException && err.$metadata.httpStatusCode === 412) return;
      throw err;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    return this.read(key);
  }

  async getRange(key: string, offset: number, length: number): Promise<Buffer | undefined> {
    return this.read(key, `bytes=${offset}-${offset + length - 1}`);
  }

  private async read(key: string, range?: string): Promise<Buffer | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }
}

/** Raw bodies in S3 under `raw/ab/<sha256>`: the cloud BlobStore. */
export class S3BlobStore implements BlobStore {
  constructor(private readonly objects: S3Objects) {}

  async put(bytes: Buffer): Promise<string> {
    const hash = contentHashOf(bytes);
    await this.objects.put(archiveKeys.raw(hash), bytes, 'application/octet-stream', true);
    return hash;
  }

  async get(hash: string): Promise<Buffer | undefined> {
    return this.objects.get(archiveKeys.raw(hash));
  }
}
