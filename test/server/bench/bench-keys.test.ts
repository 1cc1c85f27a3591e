import { describe, expect, it } from "vitest";
import { createKeyService } from "../../../server/access/key-service.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";

describe("firm keys", () => {
  it("lists a firm while one of its keys is active, across rotation, and only bench keys carry a firm", async () => {
    const store = await createMemoryStore();
    const keys = createKeyService({ store });
    const one = await keys.issue({ tier: "bench", email: "a@example.org", label: "a", firm: "acme" });
    await keys.issue({ tier: "free", email: "b@example.org", label: "b" });
    const other = await keys.issue({ tier: "bench", email: "c@example.org", label: "c", firm: "zeta-bank" });
    expect(await keys.firms()).toEqual(["acme", "zeta-bank"]);
    const rotated = await keys.rotate(one.key);
    expect(rotated?.record.firm).toBe("acme");
    expect(await keys.firms()).toEqual(["acme", "zeta-bank"]);
    await keys.revoke(rotated?.key as string);
    await keys.revoke(other.key);
    expect(await keys.firms()).toEqual([]);
    await expect(keys.issue({ tier: "bench", email: "d@example.org", label: "d" })).rejects.toThrow(
      TypeError,
    );
    await expect(
      keys.issue({ tier: "pro", email: "d@example.org", label: "d", firm: "acme" }),
    ).rejects.toThrow(TypeError);
    await expect(
      keys.issue({ tier: "bench", email: "d@example.org", label: "d", firm: "Bad:Slug" }),
    ).rejects.toThrow(TypeError);
    await store.close();
  });
});
