import { benchPaths } from "../routes/bench-routes.ts";
import { forYouPaths } from "../routes/for-you-routes.ts";
import { keyPaths } from "../routes/key-routes.ts";
import { mcpPaths } from "../routes/mcp-routes.ts";
import { papersPaths } from "../routes/papers-routes.ts";
import { readPaths } from "../routes/read-routes.ts";
import { readerPaths } from "../routes/reader-routes.ts";
import { feedPaths } from "../routes/site-routes.ts";
import { submissionPaths } from "../routes/submission-routes.ts";
import { verifyPaths } from "../routes/verify-routes.ts";
import { webhookPaths } from "../routes/webhook-routes.ts";
import type { PathDoc } from "./operation.ts";

/**
 * The API's operations, each declared in its route file next to its handlers. A route file added later
 * joins this list; test/server/openapi/coverage.test.ts fails for any registered route the document lacks.
 */
export const API_PATHS: readonly PathDoc[] = [
  ...readPaths,
  ...feedPaths,
  ...keyPaths,
  ...readerPaths,
  ...forYouPaths,
  ...papersPaths,
  ...verifyPaths,
  ...submissionPaths,
  ...webhookPaths,
  ...mcpPaths,
  ...benchPaths,
];
