import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { isFirmSlug } from "../pipeline/domain/bench-firm.ts";
import type { BenchNote } from "../pipeline/domain/bench-note.ts";
import { noteHtml, noteMarkdown } from "../pipeline/domain/bench-note-render.ts";
import { FIRM_RUBRIC_VERSIONS_KEPT } from "../pipeline/domain/bench-rubric.ts";
import { ISO_WEEK_PATTERN, previousWeek, weekDays } from "../pipeline/domain/bench-week.ts";
import { dayOf } from "../pipeline/domain/calendar.ts";
import { siteUrlFromEnv } from "../pipeline/site-url.ts";
import { createKeyService, type KeyService } from "../server/access/key-service.ts";
import { type BenchStore, createBenchStore } from "../server/bench/bench-store.ts";
import { buildWeeklyNote } from "../server/bench/weekly-note.ts";
import { configFromEnv } from "../server/config.ts";
import { createStoreFromEnv } from "../server/store/from-env.ts";
import type { Store } from "../server/store/types.ts";
import { announceNote } from "../server/webhooks/note-event.ts";
import { createOutput, UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";

/** Runs `fn` on the firms' state in the configured store (the one servers and `picks keys` use). */
export async function withBench<T>(
  fn: (bench: BenchStore, state: { store: Store; keys: KeyService }) => Promise<T>,
): Promise<T> {
  const config = configFromEnv(process.env);
  const store = await createStoreFromEnv(process.env, { rootDir: PROJECT_ROOT });
  try {
    const keys = createKeyService({ store, prefix: config.keyPrefix });
    return await fn(createBenchStore(store, keys), { store, keys });
  } finally {
    await store.close();
  }
}

function firmFlag(value: string): string {
  if (!isFirmSlug(value))
    throw new UsageError(`Expected a firm slug such as acme-bank, got \`${value.slice(0, 60)}\``);
  return value;
}

function weekFlag(value: string): string {
  if (!new RegExp(ISO_WEEK_PATTERN).test(value) || !weekDays(value)) {
    throw new UsageError(
      `Expected \`--week\` to be an ISO week such as 2026-W47, got \`${value.slice(0, 60)}\``,
    );
  }
  return value;
}

export function registerBench(program: Command): void {
  const bench = program
    .command("bench")
    .description("Bench-as-a-Service firms: list, show, build weekly notes (operator)");
  bench
    .command("list")
    .description("firms with an active bench key")
    .option("--json", "print the result as JSON", false)
    .action(listFirms);
  bench
    .command("show <firm>")
    .description("a firm's watchlist, rubric and notes")
    .option("--json", "print the result as JSON", false)
    .action(showFirm);
  bench
    .command("note")
    .description("build a firm's weekly note (default: last week; every firm without --firm)")
    .option("--firm <slug>", "one firm (default: every firm)")
    .option("--week <week>", "ISO week, e.g. 2026-W47 (default: the week before this one)")
    .option("--out <dir>", "also write <firm>-<week>.md and .html there")
    .option("--json", "print the result as JSON", false)
    .action(buildNotes);
}

async function listFirms(flags: { json: boolean }): Promise<void> {
  const out = createOutput({ json: flags.json });
  const firms = await withBench(async (store) =>
    Promise.all(
      (await store.firms()).map(async (firm) => ({
        firm,
        watchlist: await store.watchlist(firm),
        rubric_version: (await store.currentRubric(firm))?.version ?? 0,
      })),
    ),
  );
  for (const { firm, watchlist, rubric_version } of firms) {
    out.line(
      `${firm}  ${watchlist.papers.length} papers, ${watchlist.authors.length} authors, ${watchlist.terms.length} terms  rubric v${rubric_version}`,
    );
  }
  if (firms.length === 0)
    out.line("No firms yet: issue a key with `picks keys issue --tier bench --firm SLUG`.");
  out.json(firms);
}

async function showFirm(firm: string, flags: { json: boolean }): Promise<void> {
  const out = createOutput({ json: flags.json });
  const slug = firmFlag(firm);
  const shown = await withBench(async (store) => {
    if (!(await store.firms()).includes(slug)) return null;
    return {
      firm: slug,
      watchlist: await store.watchlist(slug),
      rubric: await store.rubrics(slug, { limit: FIRM_RUBRIC_VERSIONS_KEPT }),
      notes: (await store.notes(slug)).map((n) => n.week),
    };
  });
  if (!shown) throw new UsageError(`No firm \`${slug}\` has an active bench key`);
  out.line(`${shown.firm}`);
  out.line(`  papers: ${shown.watchlist.papers.join(", ") || "none"}`);
  out.line(`  authors: ${shown.watchlist.authors.join(", ") || "none"}`);
  out.line(`  terms: ${shown.watchlist.terms.join(", ") || "none"}`);
  out.line(
    `  rubric: ${shown.rubric.current ? `v${shown.rubric.current.version} (${shown.rubric.versions.length} versions kept)` : "public weights (none stored)"}`,
  );
  out.line(`  notes: ${shown.notes.join(", ") || "none"}`);
  out.json(shown);
}

async function buildNotes(flags: {
  firm?: string;
  week?: string;
  out?: string;
  json: boolean;
}): Promise<void> {
  const out = createOutput({ json: flags.json });
  const now = new Date();
  const week = flags.week === undefined ? previousWeek(dayOf(now)) : weekFlag(flags.week);
  const only = flags.firm === undefined ? undefined : firmFlag(flags.firm);
  const siteUrl = siteUrlFromEnv(process.env);
  const notes = await withBench(async (store, state) => {
    // Firms with an endpoint subscribed to bench.note.ready are told; a server's worker delivers.
    const announce = (note: BenchNote) => announceNote(state, note, now.getTime(), siteUrl);
    const firms = await store.firms();
    if (only !== undefined && !firms.includes(only)) {
      throw new UsageError(`No firm \`${only}\` has an active bench key`);
    }
    const built = [];
    for (const firm of only === undefined ? firms : [only]) {
      const note = await buildWeeklyNote(store, firm, week, now, announce);
      if (note) built.push(note);
    }
    return built;
  });
  for (const note of notes) {
    out.line(
      `${note.firm} ${note.week}: ${note.published_days.length} days, ${note.picks.length} picks, ${note.hits.length} hits`,
    );
    if (flags.out) {
      await mkdir(flags.out, { recursive: true });
      const name = join(flags.out, `${note.firm}-${note.week}`);
      await writeFile(`${name}.md`, noteMarkdown(note));
      await writeFile(`${name}.html`, noteHtml(note));
      out.line(`  wrote ${name}.md and ${name}.html`);
    }
  }
  out.json(notes);
}
