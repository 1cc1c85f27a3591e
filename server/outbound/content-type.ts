// A response's declared content type, read once for every outbound call: which bodies are read at
// all (text pages by default, or the types a caller names) and in which character set.

/** Content types read as text pages (a submission scores their text; anything else, its description alone). */
const TEXT_TYPES = ["text/html", "application/xhtml+xml", "text/plain", "text/markdown", "text/x-markdown"];

export interface ContentType {
  mime: string;
  charset: string | null;
}

export function parseContentType(header: string | null): ContentType | null {
  if (!header) return null;
  const [mime = "", ...params] = header.split(";");
  const charset = params
    .map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param)?.[1])
    .find((value) => value !== undefined);
  return { mime: mime.trim().toLowerCase(), charset: charset?.toLowerCase() ?? null };
}

export const isTextType = (type: ContentType | null): boolean =>
  type !== null && TEXT_TYPES.includes(type.mime);
