// The operator's judgement of a published day, in the shared labels format (../shared/curation/README.md),
// so `picks train` learns from it as from the expert days. Pure: `picks label` reads and writes the files.

import type { LabelsFile, PaperLabel } from "./labels.ts";
import type { Screened } from "./run-record.ts";

export interface Answer {
  label: PaperLabel["label"];
  /** For labels 1 and 2; when absent, the rubric's REG FIT stands in. */
  reg_fit?: number;
}

/** A paper's label as the file keeps it; the group follows the rubric side the paper scores higher on. */
export function labelOf(answer: Answer, candidate: Screened): PaperLabel {
  if (answer.label === 0) return { label: 0, group: "none", reg_fit: null, why: "operator: off mission" };
  const { substrate, governance } = candidate.scores.groups;
  const group =
    substrate === 0 && governance === 0
      ? "research-only"
      : governance >= substrate
        ? "governance"
        : "substrate";
  const regFit = answer.reg_fit ?? candidate.scores.reg_fit.score;
  const why = answer.label === 2 ? "operator: must read" : "operator: on topic";
  return { label: answer.label, group, reg_fit: regFit, why };
}

/** The labels file with one paper's label set (or replaced), keys in id order so the file diffs well. */
export function withLabel(file: LabelsFile, id: string, label: PaperLabel): LabelsFile {
  const labels = { ...file.labels, [id]: label };
  const sorted = Object.fromEntries(
    Object.keys(labels)
      .sort()
      .map((key) => [key, labels[key] as PaperLabel]),
  );
  return { ...file, labels: sorted };
}

const SETTING = /^(.+)=([012])(?::([123]))?$/;

/**
 * One `--set` value: `2606.12345=2`, or with the REG FIT, `2606.12345=2:3`.
 * @example parseSetting("2606.12345=1:2") // { id: "2606.12345", answer: { label: 1, reg_fit: 2 } }
 */
export function parseSetting(value: string): { id: string; answer: Answer } | undefined {
  const match = SETTING.exec(value);
  if (!match) return undefined;
  const label = Number(match[2]) as Answer["label"];
  if (label === 0 && match[3] !== undefined) return undefined;
  return {
    id: match[1] as string,
    answer: match[3] === undefined ? { label } : { label, reg_fit: Number(match[3]) },
  };
}
