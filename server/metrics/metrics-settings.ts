/** Where /metrics is served and whether requests are logged (docs/operations.md, "Metrics and logs"). */
export interface MetricsSettings {
  /** METRICS_PORT: the port of a listener of its own; null for none. 0 picks a free port. */
  port: number | null;
  /** METRICS_HOST: the address that listener binds to. */
  host: string;
  /**
   * METRICS_TOKEN: the bearer token a scrape must send. Without METRICS_PORT, /metrics is served on
   * the main port with it; with METRICS_PORT, the listener asks for it too.
   */
  token: string | null;
  /** LOG_REQUESTS=1: one JSON line per request on stdout. */
  logRequests: boolean;
}

export const METRICS_OFF: MetricsSettings = {
  port: null,
  host: "127.0.0.1",
  token: null,
  logRequests: false,
};

/** True when this process keeps metrics: something will scrape them. */
export const metricsOn = (settings: MetricsSettings): boolean =>
  settings.port !== null || settings.token !== null;

/** /metrics on the public port: only ever behind the token. */
export const metricsOnMainPort = (settings: MetricsSettings): boolean =>
  settings.port === null && settings.token !== null;

const MIN_TOKEN_LENGTH = 16;

const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/**
 * Reads the metrics settings. With `mainPort` (the port `picks serve` listens on), a METRICS_PORT equal
 * to it is refused without a token, since the metrics would be open on the public port, and with one
 * it means /metrics on the main port. Throws with the offending value.
 */
export function metricsSettingsFromEnv(env: NodeJS.ProcessEnv, mainPort?: number): MetricsSettings {
  const rawPort = env.METRICS_PORT?.trim() ?? "";
  let port: number | null = null;
  if (rawPort !== "") {
    if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65_535) {
      throw new Error(`Expected METRICS_PORT to be a port number from 0 to 65535, got \`${rawPort}\``);
    }
    port = Number(rawPort);
  }
  const rawToken = env.METRICS_TOKEN?.trim() ?? "";
  const token = rawToken === "" ? null : rawToken;
  if (token !== null && (token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token))) {
    throw new Error(
      `Expected METRICS_TOKEN to be at least ${MIN_TOKEN_LENGTH} printable characters without spaces ` +
        "(e.g. `openssl rand -hex 32`)",
    );
  }
  const rawLog = env.LOG_REQUESTS?.trim() ?? "";
  if (!["", "0", "1"].includes(rawLog)) {
    throw new Error(`Expected LOG_REQUESTS to be 0 or 1, got \`${rawLog}\``);
  }
  if (port !== null && port !== 0 && port === mainPort) {
    if (token === null) {
      throw new Error(
        `METRICS_PORT ${port} is the public port of the server: set METRICS_TOKEN to serve /metrics ` +
          "there behind a bearer token, or give METRICS_PORT a port of its own",
      );
    }
    // The same port with a token: the main listener serves /metrics behind it.
    port = null;
  }
  const host = env.METRICS_HOST?.trim() || "127.0.0.1";
  if (port !== null && token === null && !isLoopbackHost(host)) {
    throw new Error(
      `METRICS_HOST ${host} would serve /metrics beyond this machine with no token: set METRICS_TOKEN, ` +
        "or leave METRICS_HOST at 127.0.0.1",
    );
  }
  return { port, host, token, logRequests: rawLog === "1" };
}
