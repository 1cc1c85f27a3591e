import { H3, type HTTPError, onResponse } from "h3";
import { KEYED_ROUTES, keepPrivate } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { registerBenchRoutes } from "../routes/bench-routes.ts";
import { registerDocsRoutes } from "../routes/docs-routes.ts";
import { registerForYouRoutes } from "../routes/for-you-routes.ts";
import { registerKeyRoutes } from "../routes/key-routes.ts";
import { registerMcpRoutes } from "../routes/mcp-routes.ts";
import { registerMetricsRoute } from "../routes/metrics-routes.ts";
import { registerOAuthRoutes } from "../routes/oauth-routes.ts";
import { registerPapersRoutes } from "../routes/papers-routes.ts";
import { registerReadRoutes } from "../routes/read-routes.ts";
import { registerReaderRoutes } from "../routes/reader-routes.ts";
import { registerSiteRoutes } from "../routes/site-routes.ts";
import { registerSubmissionRoutes } from "../routes/submission-routes.ts";
import { registerVerifyRoutes } from "../routes/verify-routes.ts";
import { registerWebhookRoutes } from "../routes/webhook-routes.ts";
import { notFound } from "./answers.ts";
import { errorAnswer } from "./error-answer.ts";

/**
 * Builds the HTTP app without listening. Every route answers FastAPI's shapes; anything unexpected
 * becomes a `{"detail"}` answer in `onError`, logged, never a stack trace.
 */
export function createApp(context: AppContext): H3 {
  const app = new H3({
    // Starlette routes a malformed percent-escape as written instead of refusing the request.
    allowMalformedURL: true,
    // onError below logs what deserves it; h3's own console output would duplicate it.
    silent: true,
    onError: (error: HTTPError) => errorAnswer(context, error),
  });
  const privately = onResponse((response) => keepPrivate(response));
  for (const keyed of KEYED_ROUTES) app.use(keyed, privately);
  registerReadRoutes(app, context);
  registerKeyRoutes(app, context);
  registerReaderRoutes(app, context);
  registerForYouRoutes(app, context);
  registerPapersRoutes(app, context);
  registerVerifyRoutes(app, context);
  registerSubmissionRoutes(app, context);
  registerWebhookRoutes(app, context);
  registerMcpRoutes(app, context);
  registerOAuthRoutes(app, context);
  registerBenchRoutes(app, context);
  registerDocsRoutes(app);
  registerSiteRoutes(app, context);
  registerMetricsRoute(app, context);
  app.all("/**", () => notFound());
  return app;
}
