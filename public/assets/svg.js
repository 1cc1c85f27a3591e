// Inline SVG from data, as dom.js builds HTML: attributes through setAttribute (never a handler or a
// style attribute, which the site's policy refuses anyway), text as text nodes.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children (nodes, or strings as text). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (/^on/i.test(name) || name === "style") throw new Error(`refusing to set ${name}`);
    node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

let serial = 0;
/** A page-unique id for an SVG's title and description. */
export const uniqueId = (prefix) => `${prefix}-${++serial}`;

/**
 * An `<svg role="img">` labelled by its title and described by its description, the way screen
 * readers announce a chart; the visible text summary beside it says the same.
 */
export function figureSvg({ width, height, title, description, className }, ...children) {
  const titleId = uniqueId("svg-title");
  const descId = uniqueId("svg-desc");
  return svg(
    "svg",
    {
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-labelledby": `${titleId} ${descId}`,
      class: className,
      preserveAspectRatio: "xMinYMin meet",
    },
    svg("title", { id: titleId }, title),
    svg("desc", { id: descId }, description),
    ...children,
  );
}
