/**
 * Serializes writes per key and merges the requests that arrive while a write runs into one follow-up
 * write. `write(key)` must write the state of `key` as it is when the write starts, so a caller whose
 * change is in memory before it calls `request` is covered by the promise it gets back: one running
 * write, at most one queued, however many callers.
 */
export interface WriteCoalescer {
  request(key: string): Promise<void>;
  /** The latest requested write of `key` (failures swallowed), or undefined when none is pending. */
  pending(key: string): Promise<void> | undefined;
  /** Waits for every pending write. */
  drain(): Promise<void>;
}

interface KeyState {
  running?: Promise<void>;
  queued?: Promise<void>;
}

export function createWriteCoalescer(write: (key: string) => Promise<void>): WriteCoalescer {
  const states = new Map<string, KeyState>();

  const start = (key: string, state: KeyState): Promise<void> => {
    const run = write(key);
    state.running = run;
    const cleanup = (): void => {
      if (state.running === run) {
        state.running = undefined;
      }
      if (!state.running && !state.queued && states.get(key) === state) {
        states.delete(key);
      }
    };
    run.then(cleanup, cleanup);
    return run;
  };

  const request = (key: string): Promise<void> => {
    let state = states.get(key);
    if (!state) {
      state = {};
      states.set(key, state);
    }
    if (state.queued) {
      return state.queued;
    }
    if (!state.running) {
      return start(key, state);
    }
    const current = state;
    const queued = state.running.then(noop, noop).then(() => {
      current.queued = undefined;
      return start(key, current);
    });
    current.queued = queued;
    return queued;
  };

  const pending = (key: string): Promise<void> | undefined => {
    const state = states.get(key);
    const latest = state?.queued ?? state?.running;
    return latest?.then(noop, noop);
  };

  const drain = async (): Promise<void> => {
    while (states.size > 0) {
      await Promise.all([...states.keys()].map((key) => pending(key)));
    }
  };

  return { request, pending, drain };
}

function noop(): void {}
