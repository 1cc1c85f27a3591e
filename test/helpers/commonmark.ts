import { type Node, Parser } from "commonmark";

/** A Markdown document as CommonMark reads it: each block with its kind and its text as read. */
export interface ReadBlock {
  kind: string;
  text: string;
  /** The inline node kinds met in the block, apart from text and soft breaks. */
  marks: string[];
}

function textOf(node: Node, marks: string[]): string {
  let text = "";
  for (let child = node.firstChild; child; child = child.next) {
    if (child.type === "text" || child.type === "code" || child.type === "html_inline") {
      if (child.type !== "text") marks.push(child.type);
      text += child.literal ?? "";
    } else if (child.type === "softbreak" || child.type === "linebreak") {
      if (child.type === "linebreak") marks.push(child.type);
      text += " ";
    } else {
      marks.push(child.type);
      text += textOf(child, marks);
    }
  }
  return text;
}

/**
 * The leaf blocks of a document in order (headings with their level, paragraphs with the list depth
 * they sit at), parsed by commonmark.js, the reference implementation of CommonMark.
 */
export function readMarkdown(markdown: string): ReadBlock[] {
  const blocks: ReadBlock[] = [];
  const walk = (node: Node, depth: number) => {
    for (let child = node.firstChild; child; child = child.next) {
      if (child.type === "heading" || child.type === "paragraph") {
        const marks: string[] = [];
        const text = textOf(child, marks);
        const kind = child.type === "heading" ? `h${child.level}` : depth === 0 ? "p" : `li${depth}`;
        blocks.push({ kind, text, marks });
      } else if (child.type === "list") {
        walk(child, depth + 1);
      } else if (child.type === "item") {
        walk(child, depth);
      } else {
        blocks.push({ kind: child.type, text: child.literal ?? "", marks: [] });
      }
    }
  };
  walk(new Parser().parse(markdown), 0);
  return blocks;
}
