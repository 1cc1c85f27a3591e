import { PROJECT_ROOT, projectPath } from "../pipeline/project-root.ts";

export { PROJECT_ROOT };
export const DEFAULT_PUBLIC_DIR = projectPath("public");
export const DEFAULT_RUNS_DIR = projectPath("data", "runs");
