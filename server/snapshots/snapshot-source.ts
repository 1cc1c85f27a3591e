import type { Readable } from "node:stream";
import type { SnapshotOriginStatus } from "../../pipeline/domain/api-answers.ts";

// Where the server's published files come from: the local folder `picks curate` writes, or a bucket
// that a curating host publishes to (bucket-source.ts). The cache reads through this and never asks
// which one it has.

/** A published file as the source lists it; `version` changes whenever its bytes may have. */
export interface SourceEntry {
  key: string;
  size: number;
  modifiedMs: number;
  version: string;
  /** The content's SHA-256 where the source knows it (a bucket's manifest): what is read is checked. */
  sha256?: string;
}

export interface SnapshotSource {
  /** Every published file, by key (`v1/daily/2026-11-20.json`, `index.html`). */
  listing(): Promise<Map<string, SourceEntry>>;
  /** The bytes of a published file, or undefined when it is gone. */
  read(key: string): Promise<Buffer | undefined>;
  /** A published file as a stream, for one read a line at a time; undefined when it is gone. */
  stream(key: string): Promise<Readable | undefined>;
  /**
   * Calls `onChange` when the published set may have changed; returns the stop. `onChange` settles
   * when the change is loaded: a source that learns of changes only once (a bucket's manifest) looks
   * again after one that failed.
   */
  watch(onChange: () => Promise<void>): () => void;
  /** For `/health`: where the files come from and whether the last look at it worked. */
  status(): SnapshotOriginStatus;
  close(): void;
}
