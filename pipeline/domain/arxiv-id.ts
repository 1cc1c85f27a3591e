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
