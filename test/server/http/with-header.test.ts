import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withHeader } from "../../../server/http/node-answer.ts";

describe("withHeader", () => {
  it("gives what the spread it stands for gives, key order included", () => {
    // Header names: any string but `__proto__`, which an object literal takes as its prototype.
    const name = fc.oneof(
      fc.constantFrom("content-type", "retry-after", "ratelimit", "0"),
      fc.string().filter((key) => key !== "__proto__"),
    );
    fc.assert(
      fc.property(
        fc.option(fc.dictionary(name, fc.string()), { nil: undefined }),
        name,
        fc.string(),
        (headers, key, value) => {
          const written = withHeader(headers, key, value);
          const spread = { ...headers, [key]: value };
          expect(written).toEqual(spread);
          expect(Object.keys(written)).toEqual(Object.keys(spread));
        },
      ),
    );
  });

  it("copies own headers only, as the spread does", () => {
    const inherited = Object.create({ "x-inherited": "yes" }) as Record<string, string>;
    inherited.ratelimit = "r";
    expect(withHeader(inherited, "content-type", "application/json")).toEqual({
      ratelimit: "r",
      "content-type": "application/json",
    });
  });

  it("leaves the headers it was given alone", () => {
    const headers = { ratelimit: '"verify";r=9;t=60' };
    withHeader(headers, "content-type", "application/json");
    expect(headers).toEqual({ ratelimit: '"verify";r=9;t=60' });
  });
});
