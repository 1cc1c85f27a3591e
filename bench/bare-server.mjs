// The baseline: a bare node:http server sending one file's bytes, nothing else. Plain JavaScript so
// that it starts without the TypeScript loader, as lean as a baseline should be.
//
//   node bench/bare-server.mjs FILE [CPU_US]
//
// With CPU_US it also spends that many microseconds of CPU on every request before answering: the
// cost-matched baseline, a server exactly as expensive as the service but with nothing else going on
// (no pauses, no waits, no allocation), whose tail is the part queueing alone explains.
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
