import { afterAll, afterEach, beforeAll } from "vitest";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.ts";

// One fake upstream for a test file: started before its tests, its requests forgotten after each test, closed after all.
export function useFakeUpstream(): FakeUpstream {
  let fake: FakeUpstream | undefined;
  const started = (): FakeUpstream => {
    if (fake === undefined) throw new Error("the fake upstream starts before the file's tests");
    return fake;
  };
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterEach(() => {
    if (fake) fake.requests.length = 0;
  });
  afterAll(() => fake?.close());
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    route: (method, path, ...replies) => started().route(method, path, ...replies),
    seen: (path) => started().seen(path),
    close: () => started().close(),
  };
}
