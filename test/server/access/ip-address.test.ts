import { BlockList, SocketAddress } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalAddress, limitAddress, parseForwardedEntry } from "../../../server/access/ip-address.ts";

describe("canonicalAddress", () => {
  it.each([
    ["1.2.3.4", "1.2.3.4"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["::1", "::1"],
    ["::", "::"],
    ["fe80::1%eth0", "fe80::1"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:102:304", "1.2.3.4"],
    ["::FFFF:0102:0304", "1.2.3.4"],
    ["0:0:0:0:0:ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:0:102:304", "::ffff:0:102:304"],
    ["64:ff9b::1.2.3.4", "64:ff9b::102:304"],
  ])("writes %s as %s", (text, canonical) => {
    expect(canonicalAddress(text)).toBe(canonical);
  });

  it.each([
    "",
    "unknown",
    "_hidden",
    "1.2.3",
    "01.2.3.4",
    "1.2.3.256",
    " 1.2.3.4",
    "1.2.3.4:80",
    "[::1]",
    "::g",
    "1::2::3",
  ])("refuses %j", (text) => {
    expect(canonicalAddress(text)).toBeNull();
  });
});

describe("parseForwardedEntry", () => {
  it.each([
    ["5.6.7.8", "5.6.7.8"],
    ["5.6.7.8:1234", "5.6.7.8"],
    [" 5.6.7.8:65535 ", "5.6.7.8"],
    ["2001:db8::1", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["[2001:DB8:0:0:0:0:0:1]:443", "2001:db8::1"],
    ["[::ffff:5.6.7.8]:80", "5.6.7.8"],
    ["::ffff:506:708", "5.6.7.8"],
  ])("reads %j as %s", (entry, address) => {
    expect(parseForwardedEntry(entry)).toBe(address);
  });

  it.each([
    "unknown",
    "_hidden",
    "_SEVKISEK",
    "garbage",
    "",
    "5.6.7.8:",
    "5.6.7.8:65536",
    "5.6.7.8:port",
    "5.6.7.8:80:80",
    "[5.6.7.8]:80",
    "[2001:db8::1]:",
    "[2001:db8::1]:99999",
    "[2001:db8::1]x",
    "2001:db8::1:443]",
    '"[2001:db8::1]:443"',
    "[[2001:db8::1]]",
    "example.org",
    "example.org:80",
  ])("refuses %j", (entry) => {
    expect(parseForwardedEntry(entry)).toBeNull();
  });
});

describe("limitAddress", () => {
  const oneNetwork = [
    "2001:db8:1:2::1",
    "2001:db8:1:2::2",
    "2001:DB8:1:2::1",
    "2001:0db8:0001:0002:0000:0000:0000:0001",
    "2001:0DB8:0001:0002:FFFF:FFFF:FFFF:FFFF",
    "2001:db8:1:2:abcd::",
  ];
  it.each(oneNetwork)("counts %s as 2001:db8:1:2::/64", (address) => {
    expect(limitAddress(address, 64)).toBe("2001:db8:1:2::/64");
  });

  it.each([
    ["2001:db8:1:3::1", 64, "2001:db8:1:3::/64"],
    ["2001:db8:1:2::1", 48, "2001:db8:1::/48"],
    ["2001:db8:1:2::1", 56, "2001:db8:1::/56"],
    ["2001:db8:1:2ff::1", 56, "2001:db8:1:200::/56"],
    ["2001:db8:1:2::1", 128, "2001:db8:1:2::1/128"],
    ["2001:db8:1:2::1", 1, "::/1"],
    ["ffff::1", 1, "8000::/1"],
    ["fe80::1%eth0", 64, "fe80::/64"],
    ["::1", 64, "::/64"],
    ["::1.2.3.4", 128, "::1.2.3.4/128"],
    ["1.2.3.4", 64, "1.2.3.4"],
    ["::ffff:1.2.3.4", 64, "1.2.3.4"],
    ["::ffff:102:304", 64, "1.2.3.4"],
    ["::ffff:102:304", 128, "1.2.3.4"],
    ["unknown", 64, "unknown"],
  ])("counts %s with a /%i prefix as %s", (address, prefix, bucket) => {
    expect(limitAddress(address, prefix)).toBe(bucket);
  });

  const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
  const isMapped = (parts: number[]) => parts.slice(0, 5).every((part) => part === 0) && parts[5] === 0xffff;

  it("gives every spelling of an address the network Node's BlockList puts it in", () => {
    fc.assert(
      fc.property(groups, fc.integer({ min: 1, max: 128 }), (parts, prefix) => {
        fc.pre(!isMapped(parts));
        const padded = parts.map((part) => part.toString(16).padStart(4, "0")).join(":");
        const compressed = new SocketAddress({ address: padded, family: "ipv6" }).address;
        const bucket = limitAddress(compressed, prefix);
        for (const spelling of [padded, padded.toUpperCase(), compressed.toUpperCase()]) {
          expect(limitAddress(spelling, prefix)).toBe(bucket);
        }
        const [network = "", bits] = bucket.split("/");
        expect(Number(bits)).toBe(prefix);
        expect(new SocketAddress({ address: network, family: "ipv6" }).address).toBe(network);
        const subnet = new BlockList();
        subnet.addSubnet(network, prefix, "ipv6");
        expect(subnet.check(compressed, "ipv6")).toBe(true);
      }),
    );
  });

  it("counts an IPv4-mapped address in any spelling as its IPv4 address", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        for (const spelling of [`::ffff:${v4}`, `::ffff:${hex}`, `0:0:0:0:0:FFFF:${hex.toUpperCase()}`]) {
          expect(limitAddress(spelling, 64)).toBe(v4);
        }
      }),
    );
  });
});
