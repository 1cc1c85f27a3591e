import {
  type CitationSource,
  type Citations,
  type CitationsIllustrative,
  type IndexedPaper,
  linkPapers,
  toCitations,
} from "../domain/citations.ts";
import { lookupOpenAlex, type OpenAlexOptions } from "./openalex.ts";
import { lookupSemanticScholar, type SemanticScholarOptions } from "./semantic-scholar.ts";

export interface CitationLookupOptions {
  /** The primary index; absent means straight to OpenAlex. */
  semanticScholar?: SemanticScholarOptions;
  /** The fallback for papers Semantic Scholar does not know or could not answer for; absent means none. */
  openAlex?: OpenAlexOptions;
  now: () => Date;
  /**
   * The indexes' answers are replayed from a recording (the sample days): every figure says so, and
   * `now` should give the recording's day, not the run's.
   */
  illustrative?: CitationsIllustrative;
}

export interface CitationLookupResult {
  /** Every requested id: found (with links to the other ids of the same lookup) or missing with the reason. */
  citations: Map<string, Citations>;
  foundBy: Record<CitationSource, number>;
  missing: number;
  /** Upstream failures, each once, in words. */
  problems: string[];
}

export interface CitationLookup {
  lookup(arxivIds: readonly string[]): Promise<CitationLookupResult>;
}

/**
 * Citation figures for a set of picks: Semantic Scholar in batches of 500, then OpenAlex for each paper it
 * did not know or could not answer for. Upstream failures never throw: those papers come back missing,
 * with the reason. Links between the papers of the set are found from both directions of the graph.
 */
export function createCitationLookup(options: CitationLookupOptions): CitationLookup {
  return {
    async lookup(requested) {
      const ids = [...new Set(requested)];
      const found = new Map<string, IndexedPaper>();
      const why = new Map<string, string[]>(ids.map((id) => [id, []]));
      const problems = new Set<string>();

      let pending = ids;
      if (options.semanticScholar) {
        const s2 = await lookupSemanticScholar(options.semanticScholar, ids);
        pending = [];
        for (const id of ids) {
          const paper = s2.papers.get(id);
          if (paper) found.set(id, paper);
          else {
            pending.push(id);
            const failure = s2.failed.get(id);
            if (failure) problems.add(failure);
            why.get(id)?.push(failure ? `Semantic Scholar failed (${failure})` : "not in Semantic Scholar");
          }
        }
      }
      if (pending.length > 0 && options.openAlex) {
        const openAlex = await lookupOpenAlex(options.openAlex, pending);
        for (const id of pending) {
          const paper = openAlex.found.get(id);
          if (paper) found.set(id, paper);
          else {
            const failure = openAlex.failed.get(id);
            if (failure) problems.add(failure);
            why.get(id)?.push(failure ? `OpenAlex failed (${failure})` : "not in OpenAlex");
          }
        }
      } else if (pending.length > 0) {
        for (const id of pending) why.get(id)?.push("no fallback index configured");
      }

      const at = options.now().toISOString();
      const links = linkPapers([...found.values()]);
      const citations = new Map<string, Citations>();
      const foundBy: Record<CitationSource, number> = { semantic_scholar: 0, openalex: 0 };
      for (const id of ids) {
        const paper = found.get(id);
        if (paper) {
          foundBy[paper.source] += 1;
          citations.set(id, toCitations(paper, at, links.get(id), options.illustrative));
        } else {
          const reason = (why.get(id) ?? []).join("; ");
          citations.set(id, {
            status: "missing",
            checked_at: at,
            reason: options.illustrative
              ? `${reason} (in the sample's figures written ${options.illustrative.written_at})`
              : reason,
          });
        }
      }
      return { citations, foundBy, missing: ids.length - found.size, problems: [...problems] };
    },
  };
}
