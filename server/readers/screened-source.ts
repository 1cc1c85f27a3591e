// The screened papers the personal ranking ranks and learns against, by day. One interface, so the
// ranking does not care where they come from: today the published days' picks (every server holds
// them); the day's whole screened list where the published tree has one.

import type { RankedCandidate } from "../../pipeline/domain/personal-ranking.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
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

/** The published days' picks as the screened papers. */
export function picksScreenedSource(snapshots: SnapshotCache): ScreenedSource {
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
