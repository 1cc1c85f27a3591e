// The settings search of `picks train` on several threads. Its folds (each day left out in turn, every
// head fitted at every c on the other days) are independent and take nearly all of training's time, so
// they are shared out: this thread takes some, and each other thread runs the same program file
// (`picks train-folds`, the prebuilt bundle or the sources) on the rest. A fold's result depends on its
// days only, so the model is byte-identical however the folds were shared.

import { availableParallelism } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Command } from "commander";
import {
  byDate,
  type FoldProbabilities,
  foldProbabilities,
  type LabelledDay,
  type TrainedRelevance,
  type TrainSettings,
  trainRelevanceWithFolds,
} from "../pipeline/domain/relevance-training.ts";
import { UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";

interface FoldsRequest {
  days: readonly LabelledDay[];
  settings: TrainSettings;
  /** Which folds (days to leave out, by index in date order) this thread computes. */
  indices: number[];
}

type FoldsAnswer = Array<[number, FoldProbabilities]>;

async function foldsOnThread(request: FoldsRequest): Promise<FoldsAnswer> {
  const worker = new Worker(join(PROJECT_ROOT, "bin", "picks.js"), {
    argv: ["train-folds"],
    workerData: request,
    stdout: false,
    stderr: false,
  });
  try {
    return await new Promise<FoldsAnswer>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) =>
        reject(new Error(`the training thread exited with ${code} before answering`)),
      );
    });
  } finally {
    void worker.terminate();
  }
}

/**
 * `trainRelevanceWithFolds`, its folds shared over `threads` threads (default: one per core, at most one
 * per day). The same days and settings give the same model, to the byte, for any number of threads.
 */
export async function trainOnThreads(
  input: readonly LabelledDay[],
  settings: TrainSettings,
  threads = availableParallelism(),
): Promise<TrainedRelevance> {
  const days = byDate(input);
  const count = Math.max(1, Math.min(threads, days.length));
  if (count === 1) return trainRelevanceWithFolds(days, settings);
  const shares = Array.from({ length: count }, (_, thread) =>
    days.map((_, index) => index).filter((index) => index % count === thread),
  );
  const others = shares.slice(1).map((indices) => foldsOnThread({ days, settings, indices }));
  // Computed here while the other threads start and work; their answers wait in the queue.
  const here: FoldsAnswer = (shares[0] as number[]).map((index) => [
    index,
    foldProbabilities(days, index, settings),
  ]);
  const byIndex = new Map([...here, ...(await Promise.all(others)).flat()]);
  return trainRelevanceWithFolds(
    days,
    settings,
    days.map((_, index) => byIndex.get(index) as FoldProbabilities),
  );
}

/** `picks train-folds`, hidden: the thread side of trainOnThreads. */
export function registerTrainFolds(program: Command): void {
  program.command("train-folds", { hidden: true }).action(runFoldsThread);
}

/** The thread side: computes the folds it was given and answers with them. */
function runFoldsThread(): void {
  if (isMainThread || !parentPort) {
    throw new UsageError("`picks train-folds` runs only on a thread that `picks train` starts");
  }
  const { days, settings, indices } = workerData as FoldsRequest;
  const answer: FoldsAnswer = indices.map((index) => [index, foldProbabilities(days, index, settings)]);
  parentPort.postMessage(answer);
}
