import { describe, expect, it } from "vitest";
import {
  ClientMetadataDocumentSchema,
  ClientMetadataSchema,
  metadataProblem,
} from "../../../pipeline/domain/oauth-client.ts";

const problemOf = (
  schema: typeof ClientMetadataSchema | typeof ClientMetadataDocumentSchema,
  body: unknown,
) => {
  const parsed = schema.safeParse(body);
  return parsed.success ? undefined : metadataProblem(parsed.error);
};

describe("ClientMetadataSchema", () => {
  it("takes what the MCP SDK registers", () => {
    const body = {
      client_name: "An agent",
      redirect_uris: ["http://127.0.0.1:53682/callback", "com.example.agent:/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
    expect(ClientMetadataSchema.parse(body)).toEqual(body);
  });

  it.each([
    ["no redirect URI", { redirect_uris: [] }, { path: "redirect_uris" }],
    [
      "a client secret's method",
      { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" },
      { path: "token_endpoint_auth_method" },
    ],
    [
      "a scheme outside the allowlist",
      { redirect_uris: ["https://a.example/cb", "vbscript:x"] },
      { redirectUri: expect.stringMatching(/^vbscript:x: the vbscript: scheme/) },
    ],
    // A field's problem is told before a redirect URI's, whatever their order in the body.
    ["both", { redirect_uris: ["mailto:x"], client_name: "n".repeat(101) }, { path: "client_name" }],
  ])("refuses %s", (_name, body, problem) => {
    expect(problemOf(ClientMetadataSchema, body)).toMatchObject(problem);
  });
});

describe("ClientMetadataDocumentSchema", () => {
  it("holds a document to the same redirect rule, and asks for its id and name", () => {
    const document = {
      client_id: "https://a.example/c.json",
      client_name: "A",
      redirect_uris: ["http://evil.example/cb"],
    };
    expect(problemOf(ClientMetadataDocumentSchema, document)).toEqual({
      redirectUri: expect.stringMatching(/only on loopback/),
    });
    expect(
      problemOf(ClientMetadataDocumentSchema, { client_name: "A", redirect_uris: ["https://a.example/cb"] }),
    ).toMatchObject({
      path: "client_id",
    });
  });
});
