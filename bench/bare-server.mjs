// The baseline: a bare node:http server sending one file's bytes, nothing else. Plain JavaScript so
// that it starts without the TypeScript loader, as lean as a baseline should be.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.argv[2]);
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": body.byteLength });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
