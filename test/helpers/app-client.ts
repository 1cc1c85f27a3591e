import { createApp } from "../../server/app.ts";
import type { AppContext } from "../../server/context.ts";
import { listen, type RunningServer } from "../../server/listen.ts";

export type Call = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * The two ways every HTTP test runs (as h3's own tests do): in-process through `app.fetch`, and over a
 * real loopback port, where the snapshot fast path answers before the router.
 */
export const MODES = ["in-process", "real port"] as const;
export type Mode = (typeof MODES)[number];

export async function clientFor(
  mode: Mode,
  context: AppContext,
): Promise<{ call: Call; close: () => Promise<void> }> {
  if (mode === "in-process") {
    const app = createApp(context);
    return {
      call: async (path, init) => app.fetch(new Request(`http://localhost${path}`, init)),
      close: async () => {},
    };
  }
  const running: RunningServer = await listen(context, { port: 0, host: "127.0.0.1" });
  return { call: (path, init) => fetch(`${running.url}${path}`, init), close: running.close };
}
