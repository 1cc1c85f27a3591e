import { describe, expect, it } from "vitest";
import {
  METRICS_OFF,
  metricsOn,
  metricsOnMainPort,
  metricsSettingsFromEnv,
} from "../../../server/metrics/metrics-settings.ts";

const TOKEN = "0123456789abcdef0123";

describe("metrics settings", () => {
  it("are off by default", () => {
    expect(metricsSettingsFromEnv({})).toEqual(METRICS_OFF);
    expect(metricsOn(METRICS_OFF)).toBe(false);
  });

  it("serve on a port of their own, or on the main port only behind a token", () => {
    const own = metricsSettingsFromEnv({ METRICS_PORT: "9464" }, 8787);
    expect(own).toMatchObject({ port: 9464, token: null });
    expect(metricsOnMainPort(own)).toBe(false);
    const main = metricsSettingsFromEnv({ METRICS_TOKEN: TOKEN }, 8787);
    expect(metricsOnMainPort(main)).toBe(true);
    // The public port named as METRICS_PORT with a token: the main listener serves it, behind the token.
    const same = metricsSettingsFromEnv({ METRICS_PORT: "8787", METRICS_TOKEN: TOKEN }, 8787);
    expect(same).toMatchObject({ port: null, token: TOKEN });
    expect(metricsOnMainPort(same)).toBe(true);
  });

  it("refuse the public port without a token", () => {
    expect(() => metricsSettingsFromEnv({ METRICS_PORT: "8787" }, 8787)).toThrow(
      /public port.*METRICS_TOKEN/,
    );
  });

  it("refuse a port of their own open beyond this machine without a token", () => {
    expect(() => metricsSettingsFromEnv({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }, 8787)).toThrow(
      /METRICS_HOST 0\.0\.0\.0 .*METRICS_TOKEN/,
    );
    expect(metricsSettingsFromEnv({ METRICS_PORT: "9464", METRICS_HOST: "127.0.0.2" }, 8787).host).toBe(
      "127.0.0.2",
    );
    const shared = { METRICS_PORT: "9464", METRICS_HOST: "10.0.0.5", METRICS_TOKEN: TOKEN };
    expect(metricsSettingsFromEnv(shared, 8787)).toMatchObject({ host: "10.0.0.5", token: TOKEN });
  });

  it("refuse values that are not what they say", () => {
    expect(() => metricsSettingsFromEnv({ METRICS_PORT: "70000" })).toThrow(/METRICS_PORT/);
    expect(() => metricsSettingsFromEnv({ METRICS_PORT: "metrics" })).toThrow(/METRICS_PORT/);
    expect(() => metricsSettingsFromEnv({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
    expect(() => metricsSettingsFromEnv({ METRICS_TOKEN: "with a space in it, long" })).toThrow(
      /METRICS_TOKEN/,
    );
    expect(() => metricsSettingsFromEnv({ LOG_REQUESTS: "true" })).toThrow(/LOG_REQUESTS/);
    expect(metricsSettingsFromEnv({ LOG_REQUESTS: "1" }).logRequests).toBe(true);
  });
});
