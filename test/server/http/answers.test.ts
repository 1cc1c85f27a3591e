import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withHeader } from "../../../server/http/answers.ts";

describe("withHeader", () => {
  it("gives what the spread it stands for gives, key order included", () => {
    const name = fc.constantFrom("content-type", "retry-after", "ratelimit", "x-other");
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

  it("leaves the headers it was given alone", () => {
    const headers = { ratelimit: '"verify";r=9;t=60' };
    withHeader(headers, "content-type", "application/json");
    expect(headers).toEqual({ ratelimit: '"verify";r=9;t=60' });
  });
});
