const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text (or a number) as HTML text or a quoted attribute value: never markup. */
export const escapeHtml = (text: string | number): string =>
  String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
