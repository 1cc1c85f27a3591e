import { describe, expect, it } from "vitest";
import type { Span } from "../../../pipeline/domain/verify-request.ts";
import { checkOf, followUp, spanText } from "./messages.ts";

const redlist = (
  terms: string[],
  body: string,
  recipient = "anna.berg@northwind-labs.com",
  subject = "Hello",
) => followUp({ subject, body, recipient, options: { redlist: terms } });

describe("redlist", () => {
  it.each([
    ["a term in the body", ["Acme"], "We compared it with Acme last week.", "fail", "Acme"],
    ["a term in another case", ["acme"], "ACME is slower.", "fail", "ACME"],
    [
      "full-width letters (NFKC)",
      ["acme"],
      "\uFF21\uFF23\uFF2D\uFF25 is slower.",
      "fail",
      "\uFF21\uFF23\uFF2D\uFF25",
    ],
    [
      "zero-width characters inside the term",
      ["acme"],
      "A\u200Bc\u200Dm\u2060e is slower.",
      "fail",
      "A\u200Bc\u200Dm\u2060e",
    ],
    ["a soft hyphen inside the term", ["acme"], "Ac\u00ADme is slower.", "fail", "Ac\u00ADme"],
    ["a decomposed accent", ["café"], "Meet at the cafe\u0301 downstairs.", "fail", "cafe\u0301"],
    [
      "a two-word term across a line break",
      ["project falcon"],
      "About Project\n  Falcon: it ships.",
      "fail",
      "Project\n  Falcon",
    ],
    ["regex characters taken literally", ["c++ (beta)"], "We love C++ (beta) a lot.", "fail", "C++ (beta)"],
    ["a pattern-looking term never acts as a pattern", [".*"], "Nothing special here.", "pass", undefined],
    ["a term inside a longer word", ["acme"], "Acmeville is a town.", "pass", undefined],
    ["a term that is not there", ["acme"], "Nothing to see.", "pass", undefined],
  ] as const)("%s", (_name, terms, body, status, shows) => {
    const message = redlist([...terms], body);
    const result = checkOf(message, "redlist");
    expect(result.status, result.message).toBe(status);
    if (status === "fail") {
      expect(result.severity).toBe("high");
      expect(result.evidence[0]?.text).toBe(shows);
      const span = result.evidence[0] as Span;
      expect(spanText(message, span.field, span.start, span.end)).toBe(shows);
    }
  });

  it("finds a term in the subject", () => {
    const result = checkOf(redlist(["acme"], "Fine body.", undefined, "Acme comparison"), "redlist");
    expect(result.evidence).toEqual([{ field: "subject", start: 0, end: 4, text: "Acme" }]);
  });

  it("counts offsets in code points when emoji come first", () => {
    const body = "🚀🚀 Acme 👩‍💻 and acme again";
    const result = checkOf(redlist(["acme"], body), "redlist");
    expect(result.evidence).toEqual([
      { field: "body", start: 3, end: 7, text: "Acme" },
      { field: "body", start: 16, end: 20, text: "acme" },
    ]);
    // In UTF-16 units the two would start at 5 and 20.
    expect([body.indexOf("Acme"), body.indexOf("acme")]).toEqual([5, 20]);
  });

  it.each([
    ["the recipient's domain", ["acme"], "sales@acme.com"],
    ["the recipient's local part", ["jane"], "jane.doe@northwind-labs.com"],
    ["a two-word term written together in the address", ["Acme Corp"], "ceo@acmecorp.com"],
  ])("exempts a term in %s", (_name, terms, recipient) => {
    const result = checkOf(redlist(terms, `Hi, ${terms[0]} team and JANE.`, recipient), "redlist");
    expect(result.status).toBe("pass");
    expect(result.message).toContain("Exempt because the recipient address contains them");
  });

  it("keeps no pass message that quotes an exempt term for later requests", () => {
    const request = redlist(["jane"], "Hi, JANE.", "jane.doe@northwind-labs.com");
    const first = checkOf(request, "redlist");
    expect(first.message).toContain("Exempt because");
    // A shared result is frozen and handed to every request; this one is made for its request alone.
    expect(Object.isFrozen(first)).toBe(false);
    expect(checkOf(request, "redlist")).not.toBe(first);
    const plain = checkOf(redlist(["acme"], "Nothing here."), "redlist");
    expect(checkOf(redlist(["acme"], "Nothing here."), "redlist")).toBe(plain);
  });

  it("exempts only the term found in the address", () => {
    const result = checkOf(redlist(["acme", "globex"], "Acme beats Globex.", "sales@acme.com"), "redlist");
    expect(result.status).toBe("fail");
    expect(result.evidence.map((span) => span.text)).toEqual(["Globex"]);
  });

  it("ignores the campaign field and blank terms", () => {
    const inCampaign = followUp({ campaign: "acme-q4", body: "Hello.", options: { redlist: ["acme"] } });
    expect(checkOf(inCampaign, "redlist").status).toBe("pass");
    expect(checkOf(redlist(["", "  ", "\u200B"], "Anything."), "redlist").status).toBe("skipped");
    expect(checkOf(followUp({}), "redlist").status).toBe("skipped");
  });
});
