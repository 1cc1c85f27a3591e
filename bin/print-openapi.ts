// Prints the OpenAPI document the server serves, for `npm run lint:openapi` and anyone who wants a copy.
import { openApiDocument } from "../server/routes/docs-routes.ts";

process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
