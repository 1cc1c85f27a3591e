import { H3, type HTTPError } from "h3";
import { detail, notFound } from "./answers.ts";
import type { AppContext } from "./context.ts";
import { registerKeyRoutes } from "./routes/key-routes.ts";
import { registerPapersRoutes } from "./routes/papers-routes.ts";
import { registerReadRoutes } from "./routes/read-routes.ts";
import { registerVerifyRoutes } from "./routes/verify-routes.ts";

/**
 * Builds the HTTP app without listening. Every route answers FastAPI's shapes; anything unexpected
 * becomes a `{"detail"}` answer in `onError`, logged, never a stack trace.
 */
export function createApp(context: AppContext): H3 {
  const app = new H3({
    // Starlette routes a malformed percent-escape as written instead of refusing the request.
    allowMalformedURL: true,
    onError(error: HTTPError) {
      const status = Math.min(error.status, 500);
      if (status === 500) context.log(`unhandled error: ${(error.cause as Error)?.stack ?? error.message}`);
      return detail(status, status === 500 ? "Internal Server Error" : error.message);
    },
  });
  registerReadRoutes(app, context);
  registerKeyRoutes(app, context);
  registerPapersRoutes(app, context);
  registerVerifyRoutes(app, context);
  app.all("/**", () => notFound());
  return app;
}
