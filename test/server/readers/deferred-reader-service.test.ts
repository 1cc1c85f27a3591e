import { expect, it } from "vitest";
import { clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";

// `picks serve` reads the relevance model at the readers' first call: the readers must answer as
// they do with the model read before the start, and the model must not be read before then.

const sample = useRankedSample();

it("answers every reader call as the service given the model at the start, reading it once, at the first", async () => {
  let loads = 0;
  const load = async () => {
    loads += 1;
    return sample.relevance;
  };
  const apps = await Promise.all(
    [sample.relevance, load].map(async (given) => {
      const context = await testContext(sample.snapshots, {
        now: () => Date.parse("2026-11-29T09:00:00Z"),
        relevance: given,
      });
      const issued = await context.keys.issue({ tier: "free", email: "r@example.org", label: "r" });
      return { ...(await clientFor("in-process", context)), key: issued.key };
    }),
  );
  expect(loads).toBe(0);
  // Papers are answered without the model.
  for (const app of apps) {
    const response = await app.call("/v1/papers?days=7", { headers: { "x-api-key": app.key } });
    expect(response.status).toBe(200);
  }
  expect(loads).toBe(0);

  const bodies = await Promise.all(
    apps.map(async ({ call, key }) => {
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await call(path, {
          method,
          headers: {
            "x-api-key": key,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.text()).replaceAll(key, "KEY") };
      };
      const before = await send("GET", "/v1/me/picks?limit=25");
      const ids = (JSON.parse(before.body) as { items: Array<{ arxiv_id: string }> }).items.map(
        (i) => i.arxiv_id,
      );
      return [
        before,
        await send("PUT", "/v1/me/library", ids.slice(-3)),
        await send("GET", "/v1/me/picks?limit=25"),
        await send("GET", "/v1/me/profile"),
        await send("PUT", "/v1/me/follows", { authors: ["Ada Lovelace"] }),
        await send("GET", "/v1/me/picks?limit=25"),
      ];
    }),
  );
  expect(loads).toBe(1);
  expect(bodies[0]?.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
  // Keys' ids differ between the two apps; everything else is the same.
  const plain = (answers: Array<{ status: number; body: string }> | undefined) =>
    answers?.map((answer) => ({ ...answer, body: answer.body.replace(/key_[0-9a-f]{16}/g, "KEY_ID") }));
  expect(plain(bodies[1])).toEqual(plain(bodies[0]));
  for (const app of apps) await app.close();
});
