// arXiv identifier rules. New style: YYMM.NNNN (2007-2014) or YYMM.NNNNN (2015 on), optional vN.
// Old style: archive[.SUBJ]/YYMMNNN, e.g. cs/0112017 or math.GT/0309136.

export const NEW_STYLE_ID = /^\d{4}\.\d{4,5}(?:v\d+)?$/;
export const OLD_STYLE_ID = /^[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?\/\d{7}(?:v\d+)?$/;

/** The pattern the HTTP layer publishes for an `arxiv_id` path parameter. */
export const ARXIV_ID_PATTERN = "^(\\d{4}\\.\\d{4,5}|[a-z]+(-[a-z]+)*(\\.[A-Z]{2})?/\\d{7})(v\\d+)?$";

export function isArxivId(value: string): boolean {
  return NEW_STYLE_ID.test(value) || OLD_STYLE_ID.test(value);
}

/** The id without its version suffix: `2401.12345v2` -> `2401.12345`. */
export function baseArxivId(id: string): string {
  return id.replace(/v\d+$/, "");
}

/**
 * Finds an arXiv id in what people paste: `arXiv:2401.12345v2`, abs and pdf URLs, a bare id.
 * Returns the versionless id, or undefined when there is none.
 * @example normalizeArxivRef("https://arxiv.org/pdf/2401.12345v2.pdf") // "2401.12345"
 */
export function normalizeArxivRef(input: string): string | undefined {
  let ref = input.trim();
  ref = ref.replace(/^arxiv:/i, "");
  const url = /^https?:\/\/(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf|html)\/(.+?)(?:\.pdf)?\/?$/i.exec(ref);
  if (url?.[1]) {
    try {
      ref = decodeURIComponent(url[1]);
    } catch {
      // A malformed escape (`%E0%A4%A`) names no id: it is input, not a bug.
      return undefined;
    }
  }
  return isArxivId(ref) ? baseArxivId(ref) : undefined;
}

/**
 * The first day of the month an id was issued in (its YYMM): a paper is announced no earlier, and new
 * submissions within days of it. Old-style ids run from 1991 to 2007.
 * @example issuedMonth("2606.12785") // "2026-06-01"
 */
export function issuedMonth(id: string): string | undefined {
  const digits = NEW_STYLE_ID.test(id)
    ? id.slice(0, 4)
    : OLD_STYLE_ID.test(id)
      ? id.split("/")[1]?.slice(0, 4)
      : undefined;
  if (digits === undefined) return undefined;
  const year = Number(digits.slice(0, 2));
  const month = digits.slice(2, 4);
  if (Number(month) < 1 || Number(month) > 12) return undefined;
  return `${year >= 91 ? 1900 + year : 2000 + year}-${month}-01`;
}

/**
 * The archives that had old-style ids (`archive/YYMMNNN`, 1991 to March 2007). An id under another name
 * has the shape but names nothing, and arXiv answers it with an error that fails the whole query.
 */
const OLD_STYLE_ARCHIVES = new Set([
  "acc-phys",
  "adap-org",
  "alg-geom",
  "ao-sci",
  "astro-ph",
  "atom-ph",
  "bayes-an",
  "chao-dyn",
  "chem-ph",
  "cmp-lg",
  "comp-gas",
  "cond-mat",
  "cs",
  "dg-ga",
  "funct-an",
  "gr-qc",
  "hep-ex",
  "hep-lat",
  "hep-ph",
  "hep-th",
  "math",
  "math-ph",
  "mtrl-th",
  "nlin",
  "nucl-ex",
  "nucl-th",
  "patt-sol",
  "physics",
  "plasm-ph",
  "q-alg",
  "q-bio",
  "q-fin",
  "quant-ph",
  "solv-int",
  "stat",
  "supr-con",
]);

/**
 * Why an id of the right shape cannot name a paper, or undefined when it can: its month is not 01-12,
 * a new-style number has the wrong length for its month (4 digits to 1412, 5 from 1501), new-style ids
 * start at 0704, old-style ones end at 0703, and an old-style archive must be one arXiv had.
 * @example arxivIdFlaw("2413.12345") // "month 13 does not exist"
 */
export function arxivIdFlaw(id: string): string | undefined {
  const base = baseArxivId(id);
  if (NEW_STYLE_ID.test(base)) {
    const [yymm = "", number = ""] = base.split(".");
    const month = Number(yymm.slice(2));
    if (month < 1 || month > 12) return `month ${yymm.slice(2)} does not exist`;
    if (yymm < "0704") return "new-style ids start in April 2007 (0704)";
    if (number.length !== (yymm < "1501" ? 4 : 5)) {
      return `ids of ${yymm} have ${yymm < "1501" ? 4 : 5} digits after the dot`;
    }
    return undefined;
  }
  if (OLD_STYLE_ID.test(base)) {
    const [archive = "", digits = ""] = base.split("/");
    const name = archive.split(".")[0] ?? "";
    if (!OLD_STYLE_ARCHIVES.has(name)) return `"${name}" is not an arXiv archive`;
    const month = Number(digits.slice(2, 4));
    if (month < 1 || month > 12) return `month ${digits.slice(2, 4)} does not exist`;
    const year = Number(digits.slice(0, 2));
    if ((year > 7 && year < 91) || (year === 7 && month > 3))
      return "old-style ids run from 1991 to March 2007";
    return undefined;
  }
  return "not an arXiv id";
}
