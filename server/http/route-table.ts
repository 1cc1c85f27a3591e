import type { H3, H3Event } from "h3";
import { methodNotAllowed, notFound } from "./answers.ts";

export type Handler = (event: H3Event) => Response | Promise<Response>;
export type MethodHandlers = Partial<Record<"GET" | "POST" | "PUT" | "DELETE", Handler>>;

/**
 * Registers a path once with all its methods, so a wrong method gets 405 with `Allow` as Starlette
 * answers it. GET routes answer HEAD too.
 */
export function route(app: H3, path: string, handlers: MethodHandlers): void {
  const allow = Object.keys(handlers).flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));
  app.all(
    path,
    (event) => {
      // The router folds a trailing slash or an empty last segment into the route; the documented
      // paths have neither, so `/v1/papers/` is not `/v1/papers`.
      if (path !== "/" && event.url.pathname.endsWith("/")) return notFound();
      const method = event.req.method === "HEAD" ? "GET" : event.req.method;
      const handler = handlers[method as keyof MethodHandlers];
      return handler ? handler(event) : methodNotAllowed(allow);
    },
    // What the route takes, for the check that the OpenAPI document describes every route and method.
    { meta: { methods: allow } satisfies RouteMethods },
  );
}

/** The meta of a route registered by `route()`. */
export interface RouteMethods {
  methods: readonly string[];
}

/** Decodes a path segment like Starlette: a malformed escape is kept as written, never an error. */
export function pathParam(event: H3Event, name: string): string {
  const raw = event.context.params?.[name] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
