import { describe, expect, it } from "vitest";
import { blockMd, inlineMd } from "../../../../pipeline/domain/bench-note-render.ts";
import { readMarkdown } from "../../../helpers/commonmark.ts";

// The weekly note's Markdown escapes only what CommonMark would read as markup: each text, read back by
// the reference parser, is the text itself, and plain text gets no backslash.

const HOSTILE = [
  "<script>alert(1)</script>",
  "[x](http://e.example) and ![img](http://e.example/x.png)",
  "<http://autolink.example> and <b>bold</b>",
  "*bold* **strong** _it_ __under__ a*b*c",
  "`code` and ``more``",
  "# not a heading",
  "###### nor this",
  "- not a list",
  "+ nor this",
  "* nor this",
  "1. not ordered",
  "2026) nor this",
  "> not a quote",
  "---",
  "***",
  "___",
  "- - -",
  "&copy; &#169; &#xA9; &amp;",
  "back\\slash \\* and a trailing backslash\\",
  "[link][ref] and [ref]: http://e.example",
  "line one\nline two",
];

const PLAIN = [
  "2606.12674",
  "Weekly note for acme, 2026-W47",
  "2026-11-16 to 2026-11-22: 3 published day(s), 2 firm pick(s), 0 hit(s). Built 2026-11-23T06:00:00.000Z.",
  "A6 5 x 2 = 10, A4 4 x 1.5 = 6; firm rubric v3, public rubric 2026.11.3; also a public pick",
  'signal A6 "prompt injection" (+2): we study prompt-injection attacks!',
  "2026-11-18 #1 2611.00009: Guarding {tool} calls | a study ~ 50% less",
  "snake_case_name and R&D & co",
  "#5 is not a heading, nor 1.5 a list, nor -3 a list, nor a - b",
];

describe("Markdown of a text that starts a block", () => {
  it.each([...HOSTILE, ...PLAIN])("%j reads back as itself, plain text", (text) => {
    const [block, ...more] = readMarkdown(blockMd(text));
    expect(more).toEqual([]);
    expect(block).toEqual({ kind: "p", text: text.replace(/\s*\n\s*/g, " "), marks: [] });
  });

  it.each([...HOSTILE, ...PLAIN])("%j reads back as itself as a list item", (text) => {
    expect(readMarkdown(`- x\n  - ${blockMd(text)}`)).toEqual([
      { kind: "li1", text: "x", marks: [] },
      { kind: "li2", text: text.replace(/\s*\n\s*/g, " "), marks: [] },
    ]);
  });

  it.each(PLAIN)("%j gets no backslash", (text) => {
    expect(blockMd(text)).toBe(text);
  });
});

describe("Markdown of a text inside strong emphasis", () => {
  it.each([...HOSTILE, ...PLAIN])("%j reads back as itself, strong", (text) => {
    expect(readMarkdown(`- **${inlineMd(text)}**`)).toEqual([
      { kind: "li1", text: text.replace(/\s*\n\s*/g, " "), marks: ["strong"] },
    ]);
  });

  it.each(["# 1. - > ---", ...PLAIN])("%j gets no backslash: nothing there starts a block", (text) => {
    expect(inlineMd(text)).toBe(text);
  });
});
