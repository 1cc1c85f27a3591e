/**
 * Group commit: the keys changed while one flush runs are flushed together by the next one, and every
 * caller of a batch is answered when its flush lands. 50 concurrent operations cost two or three
 * writes instead of 50. `flush(keys)` must write the state of each key as it is when the flush starts,
 * so a change made in memory before `commit` is covered by the promise `commit` returns.
 */
export interface GroupCommit {
  /** Puts `key` in the next batch; resolves when that batch is flushed, rejects when its flush failed. */
  commit(key: string): Promise<void>;
  /** Settles (never rejects) when the latest batch holding `key` has; undefined when none is pending. */
  pending(key: string): Promise<void> | undefined;
  /** Resolves once every batch committed so far has settled. */
  drain(): Promise<void>;
}

interface Batch {
  keys: Set<string>;
  done: Promise<void>;
  /** `done` with failures swallowed; its handler also keeps a failed batch from being "unhandled". */
  settled: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export function createGroupCommit(flush: (keys: ReadonlySet<string>) => Promise<void>): GroupCommit {
  let open: Batch | undefined;
  let flushing: Batch | undefined;
  let idle: Promise<void> = Promise.resolve();
  let markIdle = noop;

  const run = async (): Promise<void> => {
    while (open) {
      const batch = open;
      open = undefined;
      flushing = batch;
      try {
        await flush(batch.keys);
        batch.resolve();
      } catch (error) {
        batch.reject(error);
      }
    }
    flushing = undefined;
    markIdle();
  };

  return {
    commit(key) {
      if (!open) {
        open = createBatch();
        if (!flushing) {
          idle = new Promise((resolve) => {
            markIdle = resolve;
          });
          // Not at once: the operations started in the same turn of the event loop (the requests
          // read from all sockets in one poll) then share the first write as well.
          setImmediate(run);
        }
      }
      open.keys.add(key);
      return open.done;
    },
    pending(key) {
      if (open?.keys.has(key)) {
        return open.settled;
      }
      return flushing?.keys.has(key) ? flushing.settled : undefined;
    },
    drain() {
      return idle;
    },
  };
}

function createBatch(): Batch {
  let resolve = noop;
  let reject: (error: unknown) => void = noop;
  const done = new Promise<void>((onDone, onError) => {
    resolve = onDone;
    reject = onError;
  });
  return { keys: new Set(), done, settled: done.then(noop, noop), resolve, reject };
}

function noop(): void {}
