import { describe, expect, it } from "vitest";
import {
  methodIndex,
  methodName,
  routeLabel,
  snapshotRoute,
  statusClassName,
  statusIndex,
  UNMATCHED,
} from "../../../server/metrics/route-label.ts";

describe("route labels", () => {
  it("are the matched template; no route or a catch-all is one label", () => {
    expect(routeLabel("/v1/papers/:arxiv_id")).toBe("/v1/papers/:arxiv_id");
    expect(routeLabel(undefined)).toBe(UNMATCHED);
    expect(routeLabel("/**")).toBe(UNMATCHED);
    expect(routeLabel("/.well-known/**")).toBe(UNMATCHED);
  });

  it("name the snapshot fast path's files as the router would", () => {
    expect(snapshotRoute("/v1/daily/2026-11-20")).toBe("/v1/daily/:date");
    expect(snapshotRoute("/v1/daily/latest?x=1")).toBe("/v1/daily/latest");
    expect(snapshotRoute("/assets/app-123.js")).toBe("/assets/**");
    expect(snapshotRoute("/")).toBe("/");
    expect(snapshotRoute("/v1/stats")).toBe("/v1/stats");
    expect(snapshotRoute("/feed-reg-fit-3.json")).toBe("/feed-reg-fit-3.json");
    expect(snapshotRoute("/something-else.txt")).toBe("static");
  });

  it("count methods by name and statuses by class, anything else in one bucket", () => {
    expect(methodName(methodIndex("GET"))).toBe("GET");
    expect(methodName(methodIndex("OPTIONS"))).toBe("OPTIONS");
    expect(methodName(methodIndex("PROPFIND"))).toBe("other");
    expect(methodName(methodIndex(undefined))).toBe("other");
    expect(statusClassName(statusIndex(200))).toBe("2xx");
    expect(statusClassName(statusIndex(304))).toBe("3xx");
    expect(statusClassName(statusIndex(429))).toBe("4xx");
    expect(statusClassName(statusIndex(503))).toBe("5xx");
    expect(statusClassName(statusIndex(0))).toBe("5xx");
    expect(statusClassName(statusIndex(999))).toBe("5xx");
  });
});
