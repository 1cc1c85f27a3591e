import { describe, expect, it } from "vitest";
import { bearerToken } from "../../../server/access/bearer-token.ts";

describe("bearerToken", () => {
  it.each([
    ["Bearer rpat_abc", "rpat_abc"],
    ["bearer rp_labs_x", "rp_labs_x"],
    ["  BEARER   tok  ", "tok"],
    ["Bearer", null],
    ["Bearer a b", null],
    ["Basic dXNlcjpwYXNz", null],
    ["", null],
    [null, null],
    [undefined, null],
  ])("reads %j as %j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
