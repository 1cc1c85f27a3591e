import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packTerms, unpackTerms } from "../../../pipeline/domain/packed-terms.ts";

describe("packed terms", () => {
  it("give back every column and each value within half a step", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 200_000 }), { maxLength: 300 }),
        fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 300, maxLength: 300 }),
        fc.boolean(),
        (unsorted, raw, signed) => {
          const columns = [...unsorted].sort((a, b) => a - b);
          const values = columns.map((_, k) => (signed ? (raw[k] as number) : Math.abs(raw[k] as number)));
          const packed = packTerms(columns, values, signed);
          const back = unpackTerms(packed, signed);
          const kept = columns.filter((_, k) => Math.round((values[k] as number) / packed.scale) !== 0);
          expect(back.columns).toEqual(kept);
          back.columns.forEach((column, k) => {
            const original = values[columns.indexOf(column)] as number;
            expect(Math.abs((back.values[k] as number) - original)).toBeLessThanOrEqual(
              packed.scale * 0.5001,
            );
          });
        },
      ),
    );
  });

  it("pack nothing as an empty string", () => {
    expect(unpackTerms(packTerms([], []))).toEqual({ columns: [], values: [] });
  });
});
