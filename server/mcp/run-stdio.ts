import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpSnapshots } from "./fresh-snapshots.ts";
import { createMcpServer } from "./mcp-server.ts";

/**
 * Serves the MCP tools on this process's stdin and stdout until the client hangs up. Stdout carries
 * protocol messages only; everything else goes through `log`, which must write to stderr.
 */
export async function runMcpStdio(options: {
  publicDir: string;
  version: string;
  log: (message: string) => void;
}): Promise<void> {
  const { log } = options;
  const snapshots = createMcpSnapshots({ publicDir: options.publicDir, log });
  const server = createMcpServer({ snapshots, version: options.version, log });
  const loadSnapshots = () =>
    snapshots.load().then(
      () => {
        const days = snapshots.days();
        log(
          days.length === 0
            ? `no snapshots in ${options.publicDir}/v1 yet; answers stay empty until \`picks curate\` runs`
            : `serving ${days.length} days from ${options.publicDir}/v1 (latest ${days[0]?.date})`,
        );
      },
      (error: unknown) => log(`could not load ${options.publicDir}/v1: ${String(error)}`),
    );
  // The snapshots load once the handshake is over, so the first tools/list does not wait for them;
  // a tool call before that starts the load itself.
  server.server.oninitialized = () => void loadSnapshots();
  server.server.onclose = () => snapshots.close();
  // A client ends the session by closing our stdin. Nothing else holds the event loop (the watchers
  // are not persistent), so the process exits by itself once answers still in flight are written.
  const stop = () => void server.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await server.connect(new StdioServerTransport());
}
