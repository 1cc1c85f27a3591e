import { fileURLToPath } from "node:url";

// Defaults are relative to the project, not the working directory, so `picks` works from anywhere.
export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DEFAULT_PUBLIC_DIR = fileURLToPath(new URL("../public", import.meta.url));
export const DEFAULT_RUNS_DIR = fileURLToPath(new URL("../data/runs", import.meta.url));
