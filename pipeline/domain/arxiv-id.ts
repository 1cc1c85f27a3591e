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
