// The screened papers the personal ranking ranks and learns against, by day. One interface, so the
// ranking does not care where they come from: a day's screened file (v1/screened/{date}.json, every
// candidate in the model's order) where one is published, else that day's picks (days curated before
// screened files existed).

import type { RankedCandidate } from "../../pipeline/domain/personal-ranking.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import type { ScreenedPaper as PublishedPaper, ScreenedDay } from "../../pipeline/domain/screened.ts";
import { findScreened } from "../snapshots/screened-papers.ts";
import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";

/** A screened paper with the day it was screened on. */
export interface ScreenedPaper extends RankedCandidate {
  date: string;
  abs_url: string;
  picked: boolean;
}

export interface ScreenedSource {
  /** The days with screened papers, newest first. */
  dates(): readonly string[];
  /** A day's screened papers in the global order; null when the day is not published. */
  day(date: string): Promise<readonly ScreenedPaper[] | null>;
  /** The newest screening of a paper (a versionless id), or null when it was never screened. */
  find(arxivId: string): Promise<ScreenedPaper | null>;
}

const asScreened = (pick: Pick): ScreenedPaper => ({
  arxiv_id: pick.arxiv_id,
  date: pick.date,
  title: pick.title,
  summary: pick.summary,
  authors: pick.authors,
  categories: pick.categories,
  abs_url: pick.abs_url,
  // Picks written by the rules carry no relevance: their rank stands in for the score.
  rank_score: pick.relevance ? (pick.relevance.on_topic + pick.relevance.top) / 2 : 1 / pick.rank,
  must_read: pick.relevance?.must_read ?? null,
  on_topic: pick.relevance?.on_topic ?? null,
  picked: true,
});

// The screened file's summary is the abstract's opening (about 320 characters): what the personal
// model reads of a paper it knows only from there.
const fromScreened = (day: ScreenedDay, paper: PublishedPaper): ScreenedPaper => ({
  arxiv_id: paper.arxiv_id,
  date: day.date,
  title: paper.title,
  summary: paper.summary,
  authors: paper.authors,
  categories: paper.categories,
  abs_url: paper.abs_url,
  rank_score: paper.on_topic ?? 1 / paper.rank,
  must_read: paper.must_read,
  on_topic: paper.on_topic,
  picked: paper.picked,
});

/** The newest days looked through for a paper its id's month does not find. */
const RECENT_LOOKUP_DAYS = 14;

/** The published days' screened files, and a day's picks where it has none. */
export function publishedScreenedSource(snapshots: SnapshotCache): ScreenedSource {
  const picks = picksScreenedSource(snapshots);
  const screenedOf = async (date: string): Promise<ScreenedDay | undefined> => {
    try {
      return await snapshots.readScreened(date);
    } catch {
      // A file that cannot be read now: the day's picks stand in until it can.
      return undefined;
    }
  };
  // Each parsed file's papers, converted once (the snapshot cache keeps a few weeks of files).
  const converted = new WeakMap<ScreenedDay, ScreenedPaper[]>();
  const papersOf = (day: ScreenedDay) => {
    let papers = converted.get(day);
    if (!papers) {
      papers = day.papers.map((paper) => fromScreened(day, paper));
      converted.set(day, papers);
    }
    return papers;
  };
  return {
    dates: picks.dates,
    async day(date) {
      if (!snapshots.days().some((held) => held.date === date)) return null;
      const screened = await screenedOf(date);
      return screened ? papersOf(screened) : picks.day(date);
    },
    async find(arxivId) {
      const found = await findScreened(snapshots, snapshots.days(), arxivId).catch(() => undefined);
      if (found) return fromScreened(found.day, found.paper);
      // A paper announced long after its id was issued (a replacement, a late cross-list): the newest
      // days, whose files the cache holds parsed, are looked through too.
      for (const held of snapshots.days().slice(0, RECENT_LOOKUP_DAYS)) {
        const day = await screenedOf(held.date);
        const paper = day?.papers.find((candidate) => candidate.arxiv_id === arxivId);
        if (day && paper) return fromScreened(day, paper);
      }
      return picks.find(arxivId);
    },
  };
}

/** The published days' picks as the screened papers. */
function picksScreenedSource(snapshots: SnapshotCache): ScreenedSource {
  const day = async (date: string): Promise<readonly ScreenedPaper[] | null> => {
    if (!snapshots.days().some((held) => held.date === date)) return null;
    try {
      return (await snapshots.readDay(date)).picks.map(asScreened);
    } catch {
      // A day whose file went away since the last load is not published any more.
      return null;
    }
  };
  return {
    dates: () => snapshots.days().map((held) => held.date),
    day,
    async find(arxivId) {
      for (const held of snapshots.days()) {
        if (held.picks.some((item) => item.arxiv_id === arxivId)) {
          return (await day(held.date))?.find((paper) => paper.arxiv_id === arxivId) ?? null;
        }
      }
      return null;
    },
  };
}
