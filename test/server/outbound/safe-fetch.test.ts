import { spawnSync } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostLookup } from "../../../server/outbound/checked-address.ts";
import { type SafeFetchOptions, safeFetch } from "../../../server/outbound/safe-fetch.ts";
import { DEFAULT_SUBMISSION_SETTINGS } from "../../../server/submissions/submission-settings.ts";
import { type PageServer, startPageServer } from "../submissions/helpers.ts";

const base: SafeFetchOptions = {
  timeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  maxRedirects: 3,
  allowLoopback: true,
  lookup: async () => {
    throw Object.assign(new Error("no DNS in this test"), { code: "ENOTFOUND" });
  },
  userAgent: DEFAULT_SUBMISSION_SETTINGS.userAgent,
};

/** A lookup that answers from a table, and records every name it was asked for. */
function tableLookup(table: Record<string, string[]>): HostLookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`unknown ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

let server: PageServer;
beforeAll(async () => {
  server = await startPageServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const hop = (n: number) => `${server.url}/hops/${n}`;
    switch (true) {
      case url.pathname === "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<p>hello there</p>");
        return;
      case url.pathname === "/host":
        res.writeHead(200, { "content-type": "text/plain" }).end(`host=${req.headers.host}`);
        return;
      case url.pathname.startsWith("/hops/"): {
        const n = Number(url.pathname.slice(6));
        if (n === 0) res.writeHead(200, { "content-type": "text/plain" }).end("arrived");
        else res.writeHead(302, { location: hop(n - 1) }).end();
        return;
      }
      case url.pathname === "/to-private":
        res.writeHead(301, { location: "http://10.0.0.1/admin" }).end();
        return;
      case url.pathname === "/to-metadata":
        res.writeHead(307, { location: "http://[::ffff:169.254.169.254]/latest/meta-data/" }).end();
        return;
      case url.pathname === "/to-ftp":
        res.writeHead(302, { location: "ftp://example.org/file" }).end();
        return;
      case url.pathname === "/big-declared":
        res.writeHead(200, { "content-type": "text/plain", "content-length": String(2 * 1024 * 1024) });
        res.end("x".repeat(2 * 1024 * 1024));
        return;
      case url.pathname === "/big-chunked": {
        res.writeHead(200, { "content-type": "text/html" });
        const chunk = "y".repeat(64 * 1024);
        let sent = 0;
        const push = () => {
          while (sent < 40 && res.write(chunk)) sent++;
          if (sent >= 40) res.end();
          else res.once("drain", push);
        };
        res.on("error", () => {});
        push();
        return;
      }
      case url.pathname === "/slow": {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("a little");
        const timer = setInterval(() => res.write("."), 100);
        res.on("close", () => clearInterval(timer));
        return;
      }
      case url.pathname === "/pdf":
        res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.7 ...");
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" }).end("nope");
    }
  });
});
afterAll(() => server.close());

describe("safeFetch", () => {
  it("fetches a loopback page only when the test-only setting allows it", async () => {
    const ok = await safeFetch(`${server.url}/page`, base);
    expect(ok).toMatchObject({ ok: true, page: { status: 200, redirects: 0, bytes: 18 } });
    const before = server.connections();
    const refused = await safeFetch(`${server.url}/page`, { ...base, allowLoopback: false });
    expect(refused).toEqual({
      ok: false,
      failure: {
        code: "url_refused",
        reason:
          "The url's host is not a public Internet address; only pages on public addresses are fetched. " +
          "Submit a publicly reachable url.",
        detail: "127.0.0.1 is a loopback address (this machine)",
      },
    });
    expect(server.connections()).toBe(before);
  });

  it("refuses a host name that resolves to loopback, without connecting", async () => {
    const before = server.connections();
    const viaSystem = await safeFetch(`http://localhost:${server.port}/page`, {
      ...base,
      allowLoopback: false,
      lookup: (await import("../../../server/outbound/checked-address.ts")).systemLookup,
    });
    expect(viaSystem).toMatchObject({ ok: false, failure: { code: "url_refused" } });
    expect(!viaSystem.ok && viaSystem.failure.detail).toMatch(
      /localhost resolves to (127\.0\.0\.1|::1), a loopback/,
    );
    // The public sentence says the host is not public, not where a name points inside the network.
    expect(!viaSystem.ok && viaSystem.failure.reason).not.toMatch(/localhost|127\.0\.0\.1|::1|loopback/);
    const lookup = tableLookup({ "runtime.example": ["127.0.0.1"] });
    const viaTable = await safeFetch(`http://runtime.example:${server.port}/page`, {
      ...base,
      allowLoopback: false,
      lookup,
    });
    expect(!viaTable.ok && viaTable.failure.detail).toContain("runtime.example resolves to 127.0.0.1");
    expect(server.connections()).toBe(before);
  });

  it("refuses a name with any refused address, even next to a public one", async () => {
    const lookup = tableLookup({ "mixed.example": ["93.184.215.14", "10.1.2.3"] });
    const result = await safeFetch("http://mixed.example/", { ...base, lookup });
    expect(!result.ok && result.failure.detail).toContain("10.1.2.3, a private-network address");
    expect(!result.ok && result.failure.reason).not.toContain("10.1.2.3");
  });

  it("connects to the checked address, looking the name up once, and keeps the Host header", async () => {
    const lookup = tableLookup({ "pages.example": ["127.0.0.1"] });
    const result = await safeFetch(`http://pages.example:${server.port}/host`, { ...base, lookup });
    expect(result.ok && Buffer.from(result.page.body ?? []).toString()).toBe(
      `host=pages.example:${server.port}`,
    );
    expect(lookup.asked).toEqual(["pages.example"]);
  });

  it.each([
    ["/to-private", "detail", "10.0.0.1 is a private-network address"],
    ["/to-metadata", "detail", "a cloud metadata service address (169.254.169.254 in ipv4-mapped form)"],
    [
      "/to-private",
      "reason",
      "A page the url redirects to is on a host that is not a public Internet address",
    ],
    ["/to-ftp", "reason", "Only http and https urls are fetched, not ftp:"],
  ] as const)("checks every redirect again: %s (%s)", async (path, field, text) => {
    const result = await safeFetch(`${server.url}${path}`, base);
    expect(result).toMatchObject({ ok: false, failure: { code: "url_refused" } });
    expect(!result.ok && result.failure[field]).toContain(text);
  });

  it("follows at most 3 redirects", async () => {
    const three = await safeFetch(`${server.url}/hops/3`, base);
    expect(three).toMatchObject({ ok: true, page: { redirects: 3, finalUrl: `${server.url}/hops/0` } });
    const four = await safeFetch(`${server.url}/hops/4`, base);
    expect(four).toMatchObject({ ok: false, failure: { code: "too_many_redirects" } });
  });

  it.each(["/big-declared", "/big-chunked"])("stops reading %s at the size cap", async (path) => {
    const result = await safeFetch(`${server.url}${path}`, base);
    expect(result).toEqual({
      ok: false,
      failure: { code: "too_large", reason: expect.stringContaining("larger than 1 MiB") },
    });
  });

  it("gives up on a slow body when the time is up", async () => {
    const started = Date.now();
    const result = await safeFetch(`${server.url}/slow`, { ...base, timeoutMs: 400 });
    expect(result).toMatchObject({ ok: false, failure: { code: "timeout" } });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("does not read a body that is not text", async () => {
    const result = await safeFetch(`${server.url}/pdf`, base);
    expect(result).toMatchObject({
      ok: true,
      page: { contentType: "application/pdf", body: null, bytes: 0 },
    });
  });

  it.each([
    ["http://user:secret@example.org/", "url_refused", "reason", "user name or password"],
    ["file:///etc/passwd", "url_refused", "reason", "not file:"],
    [
      "http://nothing.invalid/",
      "dns_failed",
      "reason",
      "The url's host name could not be resolved; check the url.",
    ],
    ["http://nothing.invalid/", "dns_failed", "detail", "nothing.invalid could not be resolved (ENOTFOUND)"],
    ["http://[fd00:ec2::254]/", "url_refused", "detail", "cloud metadata"],
    ["http://0x7f.1/", "url_refused", "detail", "127.0.0.1 is a loopback"],
  ] as const)("fails %s with %s (%s)", async (url, code, field, text) => {
    const result = await safeFetch(url, { ...base, allowLoopback: false });
    expect(result).toMatchObject({ ok: false, failure: { code } });
    expect(!result.ok && result.failure[field]).toContain(text);
  });

  it("says a page could not be fetched, and tells only the operator how and where", async () => {
    const closed = await startPageServer(() => {});
    await closed.close();
    const result = await safeFetch(`${closed.url}/page`, base);
    expect(result).toEqual({
      ok: false,
      failure: {
        code: "unreachable",
        reason: "The page could not be fetched; check that the url is reachable from the Internet.",
        detail: expect.stringContaining(`127.0.0.1:${closed.port}: ECONNREFUSED`),
      },
    });
  });

  it("says the page was too slow without saying where it was", async () => {
    const result = await safeFetch(`${server.url}/slow`, { ...base, timeoutMs: 300 });
    expect(result).toEqual({
      ok: false,
      failure: {
        code: "timeout",
        reason: "The page did not arrive within 0.3 seconds; submit a url that answers faster.",
        detail: `127.0.0.1:${server.port}: no complete answer within 300 ms`,
      },
    });
  });

  it("reports an answer that is not 2xx", async () => {
    const result = await safeFetch(`${server.url}/missing`, base);
    expect(result).toMatchObject({
      ok: false,
      failure: { code: "http_status", reason: expect.stringContaining("HTTP 404") },
    });
  });

  it("throws the caller's abort instead of reporting a failure", async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${server.url}/slow`, { ...base, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("lease lost")), 100);
    await expect(pending).rejects.toThrow("lease lost");
  });
});

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

describe.skipIf(!hasOpenssl)("safeFetch over https", () => {
  it("connects to the checked address with SNI, Host and certificate checks for the name", async () => {
    const dir = await mkdtemp(join(tmpdir(), "picks-tls-"));
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    const made = spawnSync("openssl", [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2"],
      ...["-subj", "/CN=pages.example", "-addext", "subjectAltName=DNS:pages.example"],
    ]);
    expect(made.status).toBe(0);
    const names: string[] = [];
    const server = createHttpsServer(
      {
        key: await readFile(key),
        cert: await readFile(cert),
        SNICallback: (name, done) => {
          names.push(name);
          done(null);
        },
      },
      (req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(`host=${req.headers.host}`),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const options = { ...base, ca: await readFile(cert, "utf8") };
    try {
      const lookup = tableLookup({ "pages.example": ["127.0.0.1"], "other.example": ["127.0.0.1"] });
      const ok = await safeFetch(`https://pages.example:${port}/`, { ...options, lookup });
      expect(ok.ok && Buffer.from(ok.page.body ?? []).toString()).toBe(`host=pages.example:${port}`);
      const wrong = await safeFetch(`https://other.example:${port}/`, { ...options, lookup });
      expect(wrong).toMatchObject({ ok: false, failure: { code: "unreachable" } });
      expect(!wrong.ok && wrong.failure.reason).toContain("TLS certificate could not be verified");
      expect(!wrong.ok && wrong.failure.detail).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
      expect(names).toEqual(["pages.example", "other.example"]);
    } finally {
      server.close();
    }
  });
});
