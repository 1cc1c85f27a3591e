// `npm run bench` runs the whole bench (run.ts); `npm run bench -- --compare REF` runs this tree
// against another commit, A/B (compare.ts).
if (process.argv.slice(2).some((arg) => arg === "--compare" || arg.startsWith("--compare="))) {
  await import("./compare.ts");
} else {
  await import("./run.ts");
}
