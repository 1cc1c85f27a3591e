import fc from "fast-check";
import { expect, it } from "vitest";
import { copyWith } from "../../server/copy-with.ts";

// copyWith stands for `{ ...base, ...changes }` on the serving path: it must give the same object,
// key order included, for any plain objects, integer-like keys and a parsed "__proto__" among them.

const key = fc.oneof(fc.constantFrom("scores", "picks", "0", "17", "__proto__", "constructor"), fc.string());
const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);
/** Objects as JSON.parse makes them: a "__proto__" key is then an own property, as a spread copies it. */
const parsed = fc.dictionary(key, value).map((object) => JSON.parse(JSON.stringify(object)) as object);

it("gives what the spread gives, key order included", () => {
  fc.assert(
    fc.property(parsed, parsed, (base, changes) => {
      const written = copyWith(base, changes);
      const spread = { ...base, ...changes };
      expect(written).toStrictEqual(spread);
      expect(Object.keys(written)).toEqual(Object.keys(spread));
      expect(JSON.stringify(written)).toBe(JSON.stringify(spread));
      expect(Object.getPrototypeOf(written)).toBe(Object.prototype);
    }),
  );
});

it("copies own enumerable properties only and leaves its arguments alone", () => {
  const base = Object.create({ inherited: 1 }) as Record<string, unknown>;
  base.own = 2;
  const changes = { own: 3, added: 4 };
  expect(copyWith(base, changes)).toStrictEqual({ own: 3, added: 4 });
  expect(base.own).toBe(2);
  expect(changes).toStrictEqual({ own: 3, added: 4 });
});
