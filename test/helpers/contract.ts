import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiPath } from "../../server/openapi/build-document.ts";
import { documentedPaths, openApiDocument } from "../../server/routes/docs-routes.ts";

// Checks an answer of the server against the OpenAPI document it serves: the status must be described
// for the operation, the body must validate (ajv, JSON Schema 2020-12) against the schema declared for
// that status and media type, and the headers declared as always present must be there and well formed.
// Requests outside every described path must get the 404 and 405 the document's conventions promise.

type Json = Record<string, unknown>;

/**
 * Registered routes the document leaves out on purpose, in h3 syntax: the static site (index page,
 * its assets and the feeds, which are files rather than API), the reference page's own assets, and
 * the OAuth authorization server, which OAuth clients learn from its own metadata (RFC 8414, 9728)
 * and which answers in the OAuth RFCs' forms, not FastAPI's; and the operator's /metrics, registered
 * only with METRICS_TOKEN.
 */
export const UNDESCRIBED_ROUTES: readonly string[] = [
  "/",
  "/index.html",
  "/v1/search-index.json",
  "/assets/**",
  "/v1/docs/assets/:file",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/**",
  "/oauth/register",
  "/oauth/authorize",
  "/oauth/token",
  "/oauth/revoke",
  // The operator's Prometheus scrape (METRICS_TOKEN): the text format, not the API's JSON.
  "/metrics",
];

/** The fallback route that answers 404 for every path nothing else takes. */
export const CATCH_ALL_ROUTE = "/**";

const DOCUMENT_ID = "urn:research-picks:openapi";
const NOT_FOUND = '{"detail":"Not Found"}';
const NOT_ALLOWED = '{"detail":"Method Not Allowed"}';
const METHODS = ["get", "head", "post", "put", "delete", "patch", "options"] as const;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Target {
  /** The document's path, or null for an undescribed route. */
  path: string | null;
  pattern: RegExp;
  /** Fewer is more specific: a literal path wins over a template, as in the router. */
  params: number;
}

function routePattern(route: string): RegExp {
  const source = route
    .split("/")
    .map((segment) => {
      if (segment === "**") return ".*";
      const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      // A parameter may be followed by a fixed suffix in its segment: `:token.xml`.
      if (segment.startsWith(":")) return `[^/]+${literal(segment.replace(/^:\w+/, ""))}`;
      return literal(segment);
    })
    .join("/");
  return new RegExp(`^${source}$`);
}

const paramCount = (route: string): number => (route.match(/:\w+|\*\*/g) ?? []).length;

const pointer = (...parts: string[]): string =>
  parts.map((part) => `/${part.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");

function createChecker() {
  const document = openApiDocument();
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // The document's own fields (openapi, info, paths, ...) are not JSON Schema keywords.
  ajv.addVocabulary(Object.keys(document));
  ajv.addSchema(document, DOCUMENT_ID);

  const targets: Target[] = [];
  for (const doc of documentedPaths) {
    for (const route of [doc.route, ...(doc.aliases ?? [])]) {
      targets.push({ path: openApiPath(doc.route), pattern: routePattern(route), params: paramCount(route) });
    }
  }
  for (const route of UNDESCRIBED_ROUTES) {
    targets.push({ path: null, pattern: routePattern(route), params: paramCount(route) });
  }
  targets.sort((a, b) => a.params - b.params);

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (at: string): ValidateFunction => {
    let validate = validators.get(at);
    if (!validate) {
      validate = ajv.getSchema(`${DOCUMENT_ID}#${at}`);
      if (!validate) throw new Error(`No schema at ${at}`);
      validators.set(at, validate);
    }
    return validate;
  };
  const resolve = (at: string): { at: string; value: Json } => {
    let value: unknown = document;
    for (const part of at.split("/").slice(1)) {
      value = (value as Json)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    }
    const ref = (value as Json).$ref;
    return typeof ref === "string" ? resolve(ref.slice(1)) : { at, value: value as Json };
  };
  const paths = document.paths as Record<string, Json>;
  return { targets, validatorAt, resolve, paths };
}

type Checker = ReturnType<typeof createChecker>;
let checker: Checker | undefined;

/** What a checked answer was, for coverage: the document's path, the method and the status. */
export interface CheckedAnswer {
  path: string;
  method: string;
  status: number;
}

const seen: CheckedAnswer[] = [];

/** Every answer checked so far in this test file's process. */
export const checkedAnswers = (): readonly CheckedAnswer[] => seen;

function problems(errors: ValidateFunction["errors"]): string {
  return (errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message}`).join("; ");
}

async function bodyProblem(
  use: Checker,
  response: Response,
  content: Json | undefined,
  at: string,
  head: boolean,
): Promise<string | undefined> {
  const text = head ? "" : await response.clone().text();
  if (!content) return text === "" ? undefined : "is there, but the document describes none";
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!(mediaType in content)) {
    return `is ${mediaType || "untyped"}, but the document describes ${Object.keys(content).join(", ")}`;
  }
  if (head) return undefined;
  let body: unknown = text;
  if (/^application\/(.+\+)?json$/.test(mediaType)) {
    try {
      body = JSON.parse(text);
    } catch {
      return `is not JSON: ${text.slice(0, 80)}`;
    }
  }
  const validate = use.validatorAt(`${at}/content${pointer(mediaType)}/schema`);
  return validate(body) ? undefined : `does not match its schema: ${problems(validate.errors)}`;
}

function headerProblems(use: Checker, response: Response, headers: Json | undefined, at: string): string[] {
  const found: string[] = [];
  for (const [name, spec] of Object.entries(headers ?? {})) {
    const value = response.headers.get(name);
    if (value === null) {
      if ((spec as Json).required === true) found.push(`the ${name} header is missing`);
      continue;
    }
    const validate = use.validatorAt(`${at}/headers${pointer(name)}/schema`);
    const integer = (validate.schema as Json).type === "integer" && /^\d+$/.test(value);
    if (!validate(integer ? Number(value) : value)) {
      found.push(`the header ${name}: ${value} ${problems(validate.errors)}`);
    }
  }
  return found;
}

/**
 * Throws when the answer to `method path` is not what the document describes. `path` is the request
 * target as sent (percent-encoded, maybe with a query).
 */
export async function checkAnswer(method: string, path: string, response: Response): Promise<void> {
  checker ??= createChecker();
  const verb = method.toUpperCase();
  const head = verb === "HEAD";
  const pathname = path.replace(/[?#].*$/, "");
  const target = checker.targets.find((candidate) => candidate.pattern.test(pathname));
  const fail = (why: string): never => {
    throw new Error(`Not as the OpenAPI document says: ${verb} ${path} answered ${response.status}: ${why}`);
  };
  const text = async () => (head ? null : await response.clone().text());
  if (!target) {
    const body = await text();
    if (response.status !== 404 || (body !== null && body !== NOT_FOUND)) fail(`expected 404 ${NOT_FOUND}`);
    return;
  }
  const documented = target.path;
  if (documented === null) return;
  const item = checker.paths[documented] as Json;
  const operation = item[verb.toLowerCase()] as Json | undefined;
  if (!operation) {
    const allow = METHODS.filter((m) => m in item).map((m) => m.toUpperCase());
    const sent = (response.headers.get("allow") ?? "").split(",").map((m) => m.trim());
    const body = await text();
    if (response.status !== 405) fail(`expected 405: the path takes ${allow.join(", ")}`);
    if ([...sent].sort().join() !== [...allow].sort().join()) fail(`expected Allow: ${allow.join(", ")}`);
    if (body !== null && body !== NOT_ALLOWED) fail(`expected ${NOT_ALLOWED}`);
    return;
  }
  const status = String(response.status);
  const responses = operation.responses as Json;
  if (!(status in responses)) fail(`the status is not among ${Object.keys(responses).join(", ")}`);
  const { at, value } = checker.resolve(
    pointer("paths", documented, verb.toLowerCase(), "responses", status),
  );
  const found = headerProblems(checker, response, value.headers as Json | undefined, at);
  const body = await bodyProblem(checker, response, value.content as Json | undefined, at, head);
  if (body) found.push(`the body ${body}`);
  if (found.length > 0) fail(found.join("; "));
  seen.push({ path: documented, method: verb, status: response.status });
}

/** `fetch` with the answer checked, for tests that talk to a server running in another process. */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const { pathname, search } = new URL(url);
  await checkAnswer(init.method ?? "GET", `${pathname}${search}`, response);
  return response;
}
