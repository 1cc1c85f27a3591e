import autocannon from "autocannon";

export interface LoadResult {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Drives `url` with autocannon: 50 connections by default, a short warm-up first. */
export async function load(
  url: string,
  options: {
    connections?: number;
    seconds?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
  } = {},
): Promise<LoadResult> {
  const base = {
    url,
    connections: options.connections ?? 50,
    headers: options.headers,
    method: (options.method ?? "GET") as "GET",
    body: options.body,
  };
  await autocannon({ ...base, duration: 1 });
  const result = await autocannon({ ...base, duration: options.seconds ?? 6 });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
