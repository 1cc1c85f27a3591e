import { describe, expect, it } from "vitest";
import { clientIp, parseTrustProxy } from "../../../server/access/client-ip.ts";

describe("parseTrustProxy", () => {
  it.each([undefined, "", "  ", "0", "00", "false"])("reads %j as trusting no proxy", (value) => {
    expect(parseTrustProxy(value)).toEqual({ kind: "none" });
  });

  it.each([
    ["1", 1],
    [" 2 ", 2],
    ["10", 10],
  ])("reads %j as %i hops", (value, hops) => {
    expect(parseTrustProxy(value)).toEqual({ kind: "hops", hops });
  });

  it.each([
    ["loopback", ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"], ["128.0.0.1", "::2", "10.0.0.1"]],
    ["192.0.2.10", ["192.0.2.10", "::ffff:192.0.2.10"], ["192.0.2.11", "192.0.2.1"]],
    ["10.0.0.0/8, 192.0.2.10", ["10.0.0.1", "10.255.255.255", "192.0.2.10"], ["11.0.0.1", "192.0.2.11"]],
    ["10.0.0.0/8,", ["10.1.2.3"], ["11.1.2.3"]],
    ["192.0.2.0/24", ["192.0.2.0", "192.0.2.255"], ["192.0.3.0"]],
    ["0.0.0.0/0", ["1.2.3.4", "255.255.255.255"], ["::1"]],
    ["2001:db8::/32", ["2001:db8::1", "2001:db8:ffff::1"], ["2001:db9::1", "::1"]],
    ["2001:DB8:0:0::/64", ["2001:db8::5"], ["2001:db8:0:1::5"]],
    ["2001:db8::7", ["2001:db8::7"], ["2001:db8::8"]],
    ["fd00::/8, loopback", ["fd12::1", "::1", "127.0.0.1"], ["fe00::1"]],
    ["::ffff:10.0.0.0/104", ["10.9.9.9", "::ffff:10.9.9.9"], ["11.9.9.9"]],
  ])("reads %j as proxy addresses", (value, inside, outside) => {
    const trust = parseTrustProxy(value);
    if (trust.kind !== "addresses") throw new Error(`expected addresses, got ${trust.kind}`);
    const check = (address: string) => trust.list.check(address, address.includes(":") ? "ipv6" : "ipv4");
    for (const address of inside) expect(check(address), address).toBe(true);
    for (const address of outside) expect(check(address), address).toBe(false);
  });

  it.each([
    ["true", "true"],
    ["-1", "-1"],
    ["1.5", "1.5"],
    ["99999999999999999999", "99999999999999999999"],
    ["proxy.example.org", "proxy.example.org"],
    ["1, 2", "1"],
    ["10.0.0.0/8, nginx", "nginx"],
    ["10.0.0.0/33", "10.0.0.0/33"],
    ["10.0.0.0/", "10.0.0.0/"],
    ["10.0.0.0/-1", "10.0.0.0/-1"],
    ["10.0.0.0/8/16", "10.0.0.0/8/16"],
    ["10.0.0.0/0x8", "10.0.0.0/0x8"],
    ["010.0.0.1", "010.0.0.1"],
    ["10.0.0", "10.0.0"],
    ["::/129", "::/129"],
    ["2001:db8::/1000", "2001:db8::/1000"],
    ["2001:db8:::/32", "2001:db8:::/32"],
    ["[2001:db8::1]", "[2001:db8::1]"],
    ["10.0.0.1:8080", "10.0.0.1:8080"],
  ])("refuses %j, naming %j", (value, entry) => {
    expect(() => parseTrustProxy(value)).toThrow(/^Expected TRUST_PROXY to be a hop count/);
    expect(() => parseTrustProxy(value)).toThrow(`got \`${entry}\``);
  });
});

describe("clientIp", () => {
  const SOCKET = "203.0.113.5";
  it.each([
    // [what it guards, TRUST_PROXY, socket, X-Forwarded-For, the client]
    ["no proxy trusted: the header is ignored", "", SOCKET, "1.2.3.4", SOCKET],
    ["no proxy trusted: an IPv4-mapped socket is its IPv4 address", "", "::ffff:203.0.113.5", null, SOCKET],
    ["no proxy trusted: an IPv6 socket is canonical", "", "2001:DB8::0:1", null, "2001:db8::1"],
    ["no socket address", "", undefined, null, "unknown"],
    ["one hop, no header: the socket", "1", SOCKET, null, SOCKET],
    ["one hop: the last entry", "1", SOCKET, "1.2.3.4", "1.2.3.4"],
    ["one hop: a client-written left entry is ignored", "1", SOCKET, "9.9.9.9, 5.6.7.8", "5.6.7.8"],
    ["one hop: a port is removed, never skipped", "1", SOCKET, "9.9.9.9, 5.6.7.8:1234", "5.6.7.8"],
    ["one hop: a bracketed IPv6 with a port", "1", SOCKET, "9.9.9.9, [2001:db8::1]:443", "2001:db8::1"],
    ["one hop: a bare IPv6, uppercase", "1", SOCKET, "9.9.9.9,2001:DB8:0:0::1", "2001:db8::1"],
    ["one hop: an IPv4-mapped entry", "1", SOCKET, "9.9.9.9, ::ffff:506:708", "5.6.7.8"],
    ["one hop: `unknown` is not skipped; the proxy's view counts", "1", SOCKET, "9.9.9.9, unknown", SOCKET],
    ["one hop: an obfuscated name is not skipped", "1", SOCKET, "9.9.9.9, _hidden", SOCKET],
    ["one hop: garbage is not skipped", "1", SOCKET, "9.9.9.9, 5.6.7.8:99999", SOCKET],
    ["one hop: empty list elements are ignored", "1", SOCKET, "9.9.9.9, 5.6.7.8, ,", "5.6.7.8"],
    ["one hop: a header of empty elements is no header", "1", SOCKET, " , ", SOCKET],
    ["two hops: the second entry from the right", "2", SOCKET, "9.9.9.9, 5.6.7.8, 10.0.0.2", "5.6.7.8"],
    ["two hops: ports on both", "2", SOCKET, "9.9.9.9, 5.6.7.8:1, 10.0.0.2:2", "5.6.7.8"],
    [
      "two hops: unparseable client hop falls back to the proxy",
      "2",
      SOCKET,
      "9.9.9.9, junk, 10.0.0.2",
      "10.0.0.2",
    ],
    ["two hops: unparseable proxy hop stops the walk", "2", SOCKET, "9.9.9.9, unknown", SOCKET],
    ["two hops: a shorter chain gives its leftmost entry", "2", SOCKET, "5.6.7.8", "5.6.7.8"],
    [
      "three hops: the third entry from the right",
      "3",
      SOCKET,
      "1.1.1.1, 2.2.2.2, 3.3.3.3, 4.4.4.4",
      "2.2.2.2",
    ],
    ["addresses: an untrusted socket ignores the header", "10.0.0.0/8", SOCKET, "1.2.3.4", SOCKET],
    [
      "addresses: the nearest untrusted entry",
      "10.0.0.0/8",
      "10.0.0.1",
      "9.9.9.9, 5.6.7.8, 10.0.0.2",
      "5.6.7.8",
    ],
    ["addresses: with a port", "10.0.0.0/8", "10.0.0.1", "9.9.9.9, 5.6.7.8:1234", "5.6.7.8"],
    ["addresses: a trusted entry with a port", "10.0.0.0/8", "10.0.0.1", "9.9.9.9, 10.0.0.2:80", "9.9.9.9"],
    [
      "addresses: garbage falls back to the proxy",
      "10.0.0.0/8",
      "10.0.0.1",
      "9.9.9.9, garbage, 10.0.0.2",
      "10.0.0.2",
    ],
    ["addresses: garbage right behind the socket", "10.0.0.0/8", "10.0.0.1", "9.9.9.9, unknown", "10.0.0.1"],
    ["addresses: all trusted gives the leftmost", "10.0.0.0/8", "10.0.0.1", "10.0.0.3, 10.0.0.2", "10.0.0.3"],
    ["addresses: a mapped socket", "10.0.0.0/8", "::ffff:10.0.0.1", "5.6.7.8", "5.6.7.8"],
    ["addresses: loopback over IPv6", "loopback", "::1", "[2001:db8::9]:5000", "2001:db8::9"],
    [
      "addresses: IPv6 proxies",
      "2001:db8:ff::/48",
      "2001:db8:ff::1",
      "2001:db8:1::1, [2001:db8:ff::2]:80",
      "2001:db8:1::1",
    ],
  ] as const)("%s", (_guards, trust, socket, forwardedFor, client) => {
    expect(clientIp(socket, forwardedFor, parseTrustProxy(trust))).toBe(client);
  });

  it("never lets the left part of the header choose the client behind one hop", () => {
    const trust = parseTrustProxy("1");
    for (const tail of ["unknown", "_x", "5.6.7.8:", "[::1", "::ffff:", "a".repeat(100)]) {
      for (const chosen of ["9.9.9.9", "2001:db8::1"]) {
        expect(clientIp(SOCKET, `${chosen}, ${tail}`, trust)).toBe(SOCKET);
      }
    }
  });
});
