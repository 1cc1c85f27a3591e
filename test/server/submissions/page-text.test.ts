import { describe, expect, it } from "vitest";
import { parseContentType } from "../../../server/outbound/content-type.ts";
import { htmlText, judgeReadability } from "../../../server/submissions/page-text.ts";
import { readPage } from "../../../server/submissions/read-page.ts";
import { ABOUT_PAGE } from "./helpers.ts";

const page = (contentType: string | null, body: string | Uint8Array | null) => {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return {
    finalUrl: "https://harbor.example/",
    redirects: 0,
    status: 200,
    contentType,
    body: bytes,
    bytes: bytes?.length ?? 0,
  };
};

describe("page text", () => {
  it("extracts title, meta description and body text, without script or style", () => {
    const text = htmlText(ABOUT_PAGE);
    expect(text.split("\n")).toEqual([
      "Harbor runtime",
      "Harbor is an open-source agent runtime with sandboxed tool calling.",
      "Harbor",
      "Harbor runs agents in isolated sandboxes with scheduling and tool calling.",
      "Every tool call is logged with provenance for audit, and a human approves risky actions.",
      "It speaks the Model Context Protocol (MCP) and keeps agent memory in a versioned store.",
    ]);
    expect(text).not.toContain("tracking");
    expect(text).not.toContain("color");
  });

  it("leaves out text no visitor sees, where keywords and orders to the scorer hide", () => {
    const html =
      '<div>shown<div hidden>hidden<p>nested</p></div> after</div><p style="display: none">none</p>' +
      '<p style="color: red; visibility:hidden">invisible</p><span aria-hidden="true">aria</span>' +
      '<div style="font-size:0">zero</div><p style="font-size: 0.8em">small is read</p>' +
      "<ul><li>one<li hidden>two<li>three</ul><!-- a comment --><p>end";
    expect(htmlText(html).split("\n")).toEqual(["shown", "after", "small is read", "one", "three", "end"]);
  });

  it("decodes entities and keeps broken markup readable", () => {
    expect(htmlText("<div>Tools &amp; agents<br>caf&eacute; <b>bold")).toBe("Tools & agents\ncafé bold");
  });

  it.each([
    ["text/html; charset=ISO-8859-1", { mime: "text/html", charset: "iso-8859-1" }],
    ['Text/Plain;Charset="UTF-8"', { mime: "text/plain", charset: "utf-8" }],
    ["application/pdf", { mime: "application/pdf", charset: null }],
  ])("parses the content type %s", (header, expected) => {
    expect(parseContentType(header)).toEqual(expected);
  });

  it("judges binary bytes and letterless pages unreadable", () => {
    expect(judgeReadability("A sentence with enough letters to be worth scoring at all.")).toEqual({
      ok: true,
    });
    expect(judgeReadability(`\u0000\u0001\uFFFD${"abc".repeat(20)}\uFFFD\u0002`).ok).toBe(false);
    expect(judgeReadability("1234 5678 ... ---").ok).toBe(false);
  });

  it("scores the page text when there is some, and says when it used the description alone", () => {
    const html = readPage(page("text/html; charset=utf-8", ABOUT_PAGE), 20_000);
    expect(html).toMatchObject({ note: null, summary: { used: true } });
    expect(html.text).toContain("provenance for audit");

    const cut = readPage(page("text/plain", `${"word ".repeat(100)}`), 50);
    expect(cut.text).toHaveLength(50);
    expect(cut.note).toBe("Scored on the description and the first 50 characters of the page's text.");

    const pdf = readPage(page("application/pdf", null), 20_000);
    expect(pdf).toMatchObject({ text: null, summary: { used: false } });
    expect(pdf.note).toBe(
      "Scored on the description alone: the page was fetched, " +
        "but it is application/pdf, not an HTML or text page.",
    );

    const garbage = readPage(
      page("text/html", new Uint8Array([0, 159, 146, 150, 255, 0, 1, 2, 3, 200, 201])),
      20_000,
    );
    expect(garbage.text).toBeNull();
    expect(garbage.note).toContain("not readable text");

    const shell = readPage(page("text/html", '<div id="root"></div><script src="app.js"></script>'), 20_000);
    expect(shell.note).toContain("no readable text");
  });
});
