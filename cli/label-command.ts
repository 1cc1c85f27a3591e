import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { emitKeypressEvents } from "node:readline";
import type { Command } from "commander";
import { isCalendarDay } from "../pipeline/domain/calendar.ts";
import { labellingQueue } from "../pipeline/domain/labelling.ts";
import type { LabelsFile } from "../pipeline/domain/labels.ts";
import { type Answer, labelOf, parseSetting, withLabel } from "../pipeline/domain/operator-labels.ts";
import { type RunRecord, RunRecordSchema, type Screened } from "../pipeline/domain/run-record.ts";
import { EvalInputError, isFile, readLabelsFile } from "../pipeline/labels-file.ts";
import { writeFileAtomic } from "../pipeline/publish.ts";
import { OPERATOR_LABELS_DIR } from "../pipeline/relevance-file.ts";
import { UsageError } from "./output.ts";
import { DEFAULT_RUNS_DIR } from "./paths.ts";

interface LabelFlags {
  set?: string[];
  runs: string;
  labels: string;
}

async function publishedDates(runsDir: string): Promise<string[]> {
  const names = await readdir(runsDir).catch(() => [] as string[]);
  return names.flatMap((name) => (/^\d{4}-\d{2}-\d{2}\.json$/.test(name) ? [name.slice(0, 10)] : [])).sort();
}

async function readRun(runsDir: string, date: string): Promise<RunRecord> {
  const path = join(runsDir, `${date}.json`);
  if (!(await isFile(path))) {
    const dates = await publishedDates(runsDir);
    const known = dates.length > 0 ? `published days: ${dates.join(", ")}` : "no day has been published yet";
    throw new UsageError(`${date} was not published (no run record ${path}); ${known}`);
  }
  return RunRecordSchema.parse(JSON.parse(await readFile(path, "utf8")));
}

/** The labels file so far (an interrupted session goes on from it), its listing copied beside it. */
async function openLabels(
  runsDir: string,
  dir: string,
  date: string,
): Promise<{ path: string; file: LabelsFile }> {
  const listingName = `listing-${date}.jsonl`;
  const listing = join(dir, listingName);
  if (!(await isFile(listing))) {
    const screened = join(runsDir, `${date}.listing.jsonl`);
    if (!(await isFile(screened))) {
      throw new UsageError(
        `${date} was curated before runs kept their listing (${screened}); curate it again first`,
      );
    }
    await writeFileAtomic(listing, await readFile(screened, "utf8"));
  }
  const path = join(dir, `labels-${date}.json`);
  if (!(await isFile(path)))
    return { path, file: { listing: listingName, labeled_by: "operator (picks label)", labels: {} } };
  try {
    return { path, file: await readLabelsFile(path) };
  } catch (error) {
    if (error instanceof EvalInputError) throw new UsageError(error.message);
    throw error;
  }
}

async function save(path: string, file: LabelsFile): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
}

/** Reads single keys from a terminal in raw mode; Ctrl-C counts as quit. */
function keyReader(input: NodeJS.ReadStream) {
  emitKeypressEvents(input);
  input.setRawMode(true);
  input.resume();
  return {
    next: () =>
      new Promise<string>((resolve) => {
        input.once("keypress", (text: string | undefined, key: { name?: string; ctrl?: boolean }) => {
          resolve(key.ctrl && key.name === "c" ? "q" : key.name === "return" ? "enter" : (text ?? ""));
        });
      }),
    close: () => {
      input.setRawMode(false);
      input.pause();
    },
  };
}

/** One paper of the walk-through, with why it is asked about (a pick, or where the model is unsure). */
interface Asked {
  candidate: Screened;
  why: string;
}

function describe({ candidate: item, why }: Asked, index: number, total: number, current: string): string {
  const rank = item.rank_score === undefined ? "" : `  rank score ${item.rank_score.toFixed(2)}`;
  return (
    `\n[${index + 1}/${total}] ${item.id}  ${why}${rank}  total ${item.scores.total}/45  REG FIT ${item.scores.reg_fit.score}  label: ${current}\n` +
    `  ${item.title}\n`
  );
}

/** The walk-through on a terminal: one key a paper, the file saved after each answer. */
async function walk(queue: Asked[], summaries: Map<string, string>, path: string, start: LabelsFile) {
  const out = process.stdout;
  const keys = keyReader(process.stdin);
  let file = start;
  let index = 0;
  let answered = 0;
  try {
    out.write(
      `Labelling ${queue.length} papers into ${path}: the day's picks, then the papers whose answers teach the model most.\n` +
        "Keys: 2 must-read, 1 on topic, 0 off mission, s skip, b back, q quit.\n",
    );
    while (index < queue.length) {
      const asked = queue[index] as Asked;
      const item = asked.candidate;
      const current = file.labels[item.id]?.label;
      out.write(describe(asked, index, queue.length, current === undefined ? "-" : String(current)));
      const summary = summaries.get(item.id);
      if (summary) out.write(`  ${summary.length > 400 ? `${summary.slice(0, 399)}…` : summary}\n`);
      out.write("  label [2/1/0, s, b, q]? ");
      const key = await keys.next();
      out.write(`${key}\n`);
      if (key === "q") break;
      if (key === "b") {
        index = Math.max(0, index - 1);
        continue;
      }
      if (key === "s") {
        index++;
        continue;
      }
      if (key !== "0" && key !== "1" && key !== "2") continue;
      const answer: Answer = { label: Number(key) as Answer["label"] };
      if (answer.label > 0) {
        out.write(`  REG FIT [1/2/3, enter = the rubric's ${item.scores.reg_fit.score}]? `);
        const fit = await keys.next();
        out.write(`${fit === "enter" ? item.scores.reg_fit.score : fit}\n`);
        if (fit === "1" || fit === "2" || fit === "3") answer.reg_fit = Number(fit);
      }
      file = withLabel(file, item.id, labelOf(answer, item));
      await save(path, file);
      answered++;
      index++;
    }
  } finally {
    keys.close();
  }
  out.write(`\n${answered} answered; ${Object.keys(file.labels).length} papers labelled in ${path}\n`);
}

export function registerLabel(program: Command): void {
  program
    .command("label")
    .description("record your judgement of a published day's papers, for `picks train` to learn from")
    .argument("<date>", "a published announcement day, YYYY-MM-DD")
    .option(
      "--set <setting...>",
      "label without a terminal: ID=2 must-read, ID=1 on topic, ID=0 off mission; ID=2:3 adds the REG FIT",
    )
    .option("--runs <dir>", "where run records are", DEFAULT_RUNS_DIR)
    .option("--labels <dir>", "where labels files go", OPERATOR_LABELS_DIR)
    .action(async (date: string, flags: LabelFlags) => {
      if (!isCalendarDay(date)) throw new UsageError(`Expected the date to be YYYY-MM-DD, got \`${date}\``);
      const settings = (flags.set ?? []).map((value) => {
        const parsed = parseSetting(value);
        if (!parsed)
          throw new UsageError(
            `Expected \`--set\` to be ID=2, ID=1, ID=0 or ID=2:3 (with REG FIT), got \`${value}\``,
          );
        return parsed;
      });
      const record = await readRun(flags.runs, date);
      const byId = new Map(record.candidates.map((item) => [item.id, item]));
      const unknown = settings.filter((setting) => !byId.has(setting.id)).map((setting) => setting.id);
      if (unknown.length > 0) throw new UsageError(`not candidates of ${date}: ${unknown.join(", ")}`);
      if (settings.length === 0 && !process.stdin.isTTY) {
        throw new UsageError(
          "`picks label` walks through the day on a terminal; without one, give `--set ID=LABEL`",
        );
      }
      const { path, file } = await openLabels(flags.runs, flags.labels, date);
      if (settings.length > 0) {
        let next = file;
        for (const { id, answer } of settings)
          next = withLabel(next, id, labelOf(answer, byId.get(id) as Screened));
        await save(path, next);
        process.stdout.write(
          `${settings.length} labels saved; ${Object.keys(next.labels).length} papers labelled in ${path}\n`,
        );
        return;
      }
      const listing = await readFile(join(flags.labels, file.listing), "utf8");
      const summaries = new Map<string, string>();
      for (const line of listing.split("\n")) {
        if (line.trim() === "") continue;
        const row = JSON.parse(line) as { id: string; summary: string };
        summaries.set(row.id, row.summary);
      }
      await walk(labellingQueue(record.candidates), summaries, path, file);
    });
}
