#!/usr/bin/env node
// The `picks` program. The code is TypeScript; tsx compiles it on the fly so that a fresh clone
// runs with `npm ci` alone, with no build step.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
