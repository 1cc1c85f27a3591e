// XML with namespaces resolved: elements are found by namespace URI and local name, never by prefix or
// position, so the arXiv API's late-2025 format and its older one (prefixes declared on each element,
// other element order) read the same.

import { XMLParser, XMLValidator } from "fast-xml-parser";
import { SourceError } from "./source.ts";

export const ATOM_NS = "http://www.w3.org/2005/Atom";
export const ARXIV_NS = "http://arxiv.org/schemas/atom";
export const OPENSEARCH_NS = "http://a9.com/-/spec/opensearch/1.1/";
export const DC_NS = "http://purl.org/dc/elements/1.1/";

export interface XmlElement {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text and CDATA, entities decoded, child elements left out. */
  text: string;
}

/** A body that is not the XML the caller expected: the run stops, nothing is published. */
export class FeedError extends SourceError {
  override name = "FeedError";
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: "#cdata",
  ignoreDeclaration: true,
  ignorePiTags: true,
  htmlEntities: true,
});

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

function build(node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement | undefined {
  const tag = Object.keys(node).find((key) => key !== ":@");
  if (tag === undefined || tag === "#text" || tag === "#cdata") return undefined;
  const attrs = node[":@"] ?? {};
  let inner = scope;
  for (const [attr, value] of Object.entries(attrs)) {
    if (attr === "xmlns" || attr.startsWith("xmlns:")) {
      if (inner === scope) inner = new Map(scope);
      (inner as Map<string, string>).set(attr === "xmlns" ? "" : attr.slice(6), value);
    }
  }
  const colon = tag.indexOf(":");
  const prefix = colon < 0 ? "" : tag.slice(0, colon);
  const element: XmlElement = {
    ns: inner.get(prefix) ?? `urn:unbound-prefix:${prefix}`,
    name: colon < 0 ? tag : tag.slice(colon + 1),
    attrs,
    children: [],
    text: "",
  };
  for (const child of (node[tag] as OrderedNode[] | undefined) ?? []) {
    if ("#text" in child) element.text += String(child["#text"]);
    else if ("#cdata" in child) {
      for (const part of child["#cdata"] as OrderedNode[]) element.text += String(part["#text"] ?? "");
    } else {
      const built = build(child, inner);
      if (built) element.children.push(built);
    }
  }
  return element;
}

/** Parses a whole document; a body that is not well-formed XML (truncated, HTML, JSON) is a FeedError. */
export function parseXml(text: string, what: string): XmlElement {
  if (/<!DOCTYPE/i.test(text.slice(0, 2048))) {
    throw new FeedError(`${what}: expected an Atom feed, got a document with a DOCTYPE (an HTML page?)`);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new FeedError(`${what}: not well-formed XML at line ${line}, column ${col} (${msg})`);
  }
  const nodes = parser.parse(text) as OrderedNode[];
  const roots = nodes.map((node) => build(node, new Map())).filter((node) => node !== undefined);
  const root = roots[0];
  if (!root || roots.length > 1) throw new FeedError(`${what}: expected one root element`);
  return root;
}

/** The document's root when it is an Atom `<feed>`; anything else is a FeedError naming what came. */
export function atomFeed(text: string, what: string): XmlElement {
  const root = parseXml(text, what);
  if (root.ns !== ATOM_NS || root.name !== "feed") {
    const got = root.ns.startsWith("urn:unbound") || root.ns === "" ? root.name : `{${root.ns}}${root.name}`;
    throw new FeedError(`${what}: expected an Atom <feed>, got <${got}>`);
  }
  return root;
}

export const childrenOf = (element: XmlElement, ns: string, name: string): XmlElement[] =>
  element.children.filter((child) => child.ns === ns && child.name === name);

export const childOf = (element: XmlElement, ns: string, name: string): XmlElement | undefined =>
  element.children.find((child) => child.ns === ns && child.name === name);

/** The child's text with whitespace runs collapsed; undefined when the child is absent or empty. */
export function textOf(element: XmlElement, ns: string, name: string): string | undefined {
  const text = childOf(element, ns, name)?.text.replace(/\s+/g, " ").trim();
  return text ? text : undefined;
}
