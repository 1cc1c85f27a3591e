// Building the page from data. Everything here goes through createElement and text nodes: titles,
// summaries, submission names and evidence come from strangers and must never be parsed as HTML.

/**
 * An element with properties and children. `text` sets textContent; `attrs` go through setAttribute
 * (never an `on*` handler or `style`); children are nodes, strings (as text) or null (skipped).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  const { text, className, attrs, data } = props;
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (/^on/i.test(name) || name === "style") throw new Error(`refusing to set ${name}`);
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [name, value] of Object.entries(data ?? {})) node.dataset[name] = String(value);
  append(node, children);
  return node;
}

/** Appends nodes and strings (as text) to `parent`, skipping null and false. */
export function append(parent, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return parent;
}

/** Replaces every child of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** The URL if it is http(s), otherwise null: a link from a stranger must not run script. */
export function safeHref(url) {
  if (typeof url !== "string") return null;
  try {
    const parsed = new URL(url, document.baseURI);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A link to another site, or plain text when the address is not http(s). */
export function externalLink(url, text, rel = "noopener noreferrer") {
  const href = safeHref(url);
  return href ? el("a", { text, attrs: { href, rel } }) : el("span", { text });
}

/** A message in a status region: `kind` is "info", "error" or "empty". */
export function notice(kind, ...children) {
  return el("div", { className: `notice notice-${kind}` }, ...children);
}

const DAY_FORMAT = new Intl.DateTimeFormat("en-GB", {
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});

/** `2026-11-20` as `Fri 20 Nov 2026`; anything else as written. */
export function formatDay(date) {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(time) ? String(date) : DAY_FORMAT.format(time);
}

/** An ISO time as `20 Nov 2026, 06:00 UTC`. */
export function formatTime(iso) {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return String(iso);
  const text = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  }).format(time);
  return `${text} UTC`;
}
