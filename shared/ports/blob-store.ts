/** Content-addressed raw bodies. */
export interface BlobStore {
  /** Stores bytes under their SHA-256 and returns the hex digest. */
  put(bytes: Buffer): Promise<string>;
  get(hash: string): Promise<Buffer | undefined>;
}
