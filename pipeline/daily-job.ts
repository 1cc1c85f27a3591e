import { type CurateOptions, type CurateResult, curate } from "./curate.ts";
import type { BucketTarget } from "./origin/open-origin.ts";
import { type FolderPublish, publishFolderTo, pullFolderFrom } from "./origin/publish-folder.ts";

// The daily job, in the order that keeps every reader whole: the bucket's history into the working
// folder, the day written to the folder, the folder published to the bucket, and only then what
// tells the world (webhooks, the firms' views). A receiver that follows a `daily.published` event to
// the CDN finds the day there.

export interface DailyJobOptions extends CurateOptions {
  /** The bucket the folder is published to after the day is written; absent: the folder only. */
  publishTo?: BucketTarget;
  publish?: {
    redisUrl?: string | undefined;
    warn: (message: string) => void;
    progress?: (done: number, total: number) => void;
  };
  /** Before anything is written: an import of history records its day as announced here. */
  beforeWrite?: () => Promise<void>;
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
  const { publishTo, publish, beforeWrite, onPulled, onWritten, onPublished, afterPublish, ...curation } =
    options;
  if (publishTo) {
    const pulled = await pullFolderFrom(publishTo, curation.outDir);
    if (pulled.pulled.length > 0) onPulled?.(pulled.where, pulled.pulled);
  }
  await beforeWrite?.();
  const result = await curate(curation);
  onWritten?.(result);
  let published: FolderPublish | null = null;
  if (publishTo) {
    published = await publishFolderTo(publishTo, curation.outDir, publish ?? { warn: () => {} });
    onPublished?.(published);
  }
  await afterPublish?.(result);
  return { result, published };
}
