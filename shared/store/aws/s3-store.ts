import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { PassThrough, type Readable } from 'node:stream';
import type { BlobStore, ObjectStore } from '../../ports/index.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import { contentHashOf } from '../../ports/content-hash.js';

/** Reads of an object's body, the first included, before a cut-off body is an error. */
const BODY_READ_ATTEMPTS = 3;

/** A body cut off while it streamed: the connection reset or closed under it. */
function isCutOff(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.message === 'aborted' || e?.message === 'socket hang up';
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);
}

/** Objects in the crawl bucket under the key layout of `archiveKeys`. */
export class S3Objects implements ObjectStore {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    /** Bytes a part of a multipart upload (S3's least is 5 MiB, but for the last part). */
    private readonly partBytes = 8 * 1024 * 1024,
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

  /** Deletes the keys (1,000 a request); a key already gone is no error. */
  async deleteMany(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const res = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = res.Errors ?? [];
      if (failed.length > 0)
        throw new Error(`S3 kept ${failed.length} of the objects asked deleted (${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message})`);
    }
  }

  async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
    const out: Array<{ key: string; size: number }> = [];
    for await (const page of this.scan(prefix)) out.push(...page);
    return out;
  }

  async *scan(prefix: string, startAfter?: string): AsyncIterable<Array<{ key: string; size: number }>> {
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token, StartAfter: token ? undefined : startAfter }),
      );
      const page: Array<{ key: string; size: number }> = [];
      for (const o of res.Contents ?? []) if (o.Key) page.push({ key: o.Key, size: o.Size ?? 0 });
      // S3 lists in UTF-8 byte order; a page is sorted as JavaScript compares keys, which agree for the archive's ASCII keys.
      yield page.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      token = res.NextContinuationToken;
    } while (token);
  }

  stream(key: string): Readable {
    // The stream exists at once; its bytes come once GetObject answers (an error ends it).
    const out = new PassThrough();
    this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })).then(
      (res) => (res.Body as Readable).on('error', (err) => out.destroy(err)).pipe(out),
      (err: unknown) => out.destroy(err as Error),
    );
    return out;
  }

  /** One PutObject when the body fits in a part, else a multipart upload (aborted when the body fails). */
  async putStream(key: string, body: Readable, contentType: string): Promise<void> {
    let chunks: Buffer[] = [];
    let size = 0;
    let uploadId: string | undefined;
    const parts: Array<{ ETag: string; PartNumber: number }> = [];
    const upload = async () => {
      uploadId ??= (await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }))).UploadId!;
      const PartNumber = parts.length + 1;
      const res = await this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber, Body: Buffer.concat(chunks) }));
      parts.push({ ETag: res.ETag!, PartNumber });
      chunks = [];
      size = 0;
    };
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= this.partBytes) await upload();
      }
      if (uploadId === undefined) return await this.put(key, Buffer.concat(chunks), contentType);
      if (size > 0) await upload();
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      if (uploadId) await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
      throw err;
    }
  }

  /**
   * One object's bytes. The SDK retries a request that fails before its answer, not a body cut off
   * while it streams (the connection reset under it): such a read is asked again, twice at most.
   */
  private async read(key: string, range?: string): Promise<Buffer | undefined> {
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }));
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
      try {
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if (attempt >= BODY_READ_ATTEMPTS || !isCutOff(err)) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
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
