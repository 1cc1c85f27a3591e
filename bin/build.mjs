// Prebuilds the `picks` program into dist/ (run by `npm ci` through `prepare`, or `npm run build`):
// plain JavaScript starts several hundred milliseconds faster than compiling the TypeScript on the
// fly. Packages stay external; each command is its own chunk, so a command loads only its code.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const outdir = new URL("../dist/", import.meta.url).pathname;
await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL("../cli/main.ts", import.meta.url).pathname],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
