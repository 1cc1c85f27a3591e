import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { MODES, postJson, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishFixtureDays } from "../../helpers/published.ts";
import { FASTAPI_ECHO_CASES } from "../validation/fastapi-echo-cases.ts";

let snapshots: SnapshotCache;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishFixtureDays()).publicDir });
});
afterAll(() => snapshots.close());

describe.each(MODES)("POST /v1/keys validation (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  // The generated table holds numbers, key orders and lengths; a few of each go through the route.
  const sample = FASTAPI_ECHO_CASES.filter(([body]) =>
    [
      '{"email": 1.0, "label": "x"}',
      '{"email": 1e16, "label": "x"}',
      '{"email": 123456789012345678901234567890, "label": "x"}',
      '{"email": "abc@d.e", "2": 1, "1": 0}',
      "[1.0, -0.0, 1e16]",
    ].includes(body),
  );
  it.each(sample)("answers %s exactly as FastAPI", async (body, expected) => {
    const response = await call("/v1/keys", postJson(body));
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe(expected);
  });

  it("refuses a label holding a lone surrogate, and issues no key for it", async () => {
    const response = await call("/v1/keys", postJson('{"email": "abc@d.e", "label": "\\ud800"}'));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(
      '{"detail":[{"type":"string_unicode","loc":["body","label"],"msg":"Input should be a valid string, unable to parse raw data as a unicode string","input":"\\ud800"}]}',
    );
    // The refused request spent nothing of the address's one key a day.
    const issued = await call("/v1/keys", postJson({ email: "abc@d.e", label: "ok" }));
    expect(issued.status).toBe(201);
  });
});
