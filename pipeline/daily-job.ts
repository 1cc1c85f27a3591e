import { type CurateOptions, type CurateResult, curate } from "./curate.ts";
import type { BucketTarget } from "./origin/open-origin.ts";
import { type FolderPublish, publishFolderTo, pullFolderFrom } from "./origin/publish-folder.ts";

// The daily job, in the order that keeps every reader whole: the bucket's history into the working
// folder, the day written to the folder, the folder published to the bucket, and only then what
// tells the world (webhooks, the firms' views). A receiver that follows a `daily.published` event to
// the CDN finds the day there.

/** Where the folder is published after the day is written, and how publishing reports. */
export interface DailyPublish {
  to: BucketTarget;
  /** The servers' Redis, hinted when anything was uploaded. */
  redisUrl?: string | undefined;
  warn: (message: string) => void;
  progress?: (done: number, total: number) => void;
}

export interface DailyJobOptions extends CurateOptions {
  /** Absent: the folder only. */
  publish?: DailyPublish;
  /** Before anything is written: an import of history records its day as announced here. */
  beforeWrite?: (date: string) => Promise<void>;
  onPulled?: (where: string, days: readonly string[]) => void;
  onWritten?: (result: CurateResult) => void;
  onPublished?: (result: FolderPublish) => void;
  /** After the day is written and published: what announces it. */
  afterPublish?: (result: CurateResult) => Promise<void>;
}

export interface DailyJobResult {
  result: CurateResult;
  published: FolderPublish | null;
}

/** Curates one day into the folder, publishes it, then announces it; see the file comment. */
export async function runDailyJob(options: DailyJobOptions): Promise<DailyJobResult> {
  const { publish, beforeWrite, onPulled, onWritten, onPublished, afterPublish, ...curation } = options;
  if (publish) {
    const pulled = await pullFolderFrom(publish.to, curation.outDir);
    if (pulled.pulled.length > 0) onPulled?.(pulled.where, pulled.pulled);
  }
  await beforeWrite?.(curation.date);
  const result = await curate(curation);
  onWritten?.(result);
  let published: FolderPublish | null = null;
  if (publish) {
    published = await publishFolderTo(publish.to, curation.outDir, publish);
    onPublished?.(published);
  }
  await afterPublish?.(result);
  return { result, published };
}
