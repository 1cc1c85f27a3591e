// The baseline: a bare node:http server sending one file's bytes, nothing else. Plain JavaScript so
// that it starts without the TypeScript loader, as lean as a baseline should be.
//
//   node bench/bare-server.mjs FILE [CPU_US]
//
// With CPU_US it also spends that many microseconds on every request before answering, busy, by the
// clock: the cost-matched baseline, a server with the service's CPU a request on one thread and
// nothing else going on (no pauses, no waits, no allocation), whose tail is what queueing explains.
// The bench prints the CPU it measured beside the target, since a spin by the clock also counts time
// the server was not running.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";

const body = readFileSync(process.argv[2]);
const cpuMs = Number(process.argv[3] ?? 0) / 1000;

function spend(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy on purpose: this is the work being stood in for.
  }
}

const server = createServer((_req, res) => {
  if (cpuMs > 0) spend(cpuMs);
  res.writeHead(200, { "content-type": "application/json", "content-length": body.byteLength });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
