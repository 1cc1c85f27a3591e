import { describe, expect, it } from "vitest";
import { classifyAddress } from "../../../server/outbound/address-class.ts";

describe("classifyAddress", () => {
  it.each([
    // IPv4 special-purpose blocks
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "cloud-metadata"],
    ["169.254.170.2", "cloud-metadata"],
    ["100.100.100.200", "cloud-metadata"],
    ["168.63.129.16", "cloud-metadata"],
    ["100.64.0.1", "carrier-grade-nat"],
    ["100.127.255.255", "carrier-grade-nat"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this-network"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.10", "documentation"],
    ["203.0.113.5", "documentation"],
    // IPv6
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fd00:ec2::254", "cloud-metadata"],
    ["ff02::1", "multicast"],
    ["fec0::1", "private"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"], // Teredo
    ["64:ff9b:1::a00:1", "reserved"], // local-use NAT64
    ["100::1", "reserved"],
    ["1::1", "reserved"], // outside global unicast
    ["4000::1", "reserved"],
    // IPv6 forms that carry a refused IPv4 address
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "cloud-metadata"],
    ["::ffff:0:192.168.0.1", "private"], // IPv4-translated
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    ["::a00:1", "private"], // IPv4-compatible, hex
    ["64:ff9b::7f00:1", "loopback"], // NAT64
    ["64:ff9b::100.64.0.1", "carrier-grade-nat"],
    ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
    ["2002:a9fe:a9fe::", "cloud-metadata"], // 6to4 of 169.254.169.254
    ["not-an-ip", "not-an-address"],
    ["1.2.3", "not-an-address"],
  ])("refuses %s as %s", (address, cls) => {
    const verdict = classifyAddress(address);
    expect(verdict.class).toBe(cls);
    expect(verdict.allowed).toBe(false);
  });

  it.each([
    ["93.184.215.14"],
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["172.15.255.255"], // just below 172.16/12
    ["172.32.0.1"], // just above it
    ["100.63.255.255"], // just below 100.64/10
    ["100.128.0.1"],
    ["169.253.255.255"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:82a::200e"],
    ["2001:4860:4860::8888"], // outside 2001::/23
    ["::ffff:8.8.8.8"],
    ["64:ff9b::808:808"],
    ["2002:808:808::1"],
  ])("allows the public address %s", (address) => {
    expect(classifyAddress(address)).toMatchObject({ class: "public", allowed: true });
  });

  it("says which embedded IPv4 address decided an IPv6 form", () => {
    expect(classifyAddress("::ffff:10.0.0.5").via).toEqual({ form: "ipv4-mapped", ipv4: "10.0.0.5" });
    expect(classifyAddress("2002:c0a8:101::").via).toEqual({ form: "6to4", ipv4: "192.168.1.1" });
    expect(classifyAddress("64:ff9b::a9fe:a9fe").via).toEqual({ form: "nat64", ipv4: "169.254.169.254" });
  });
});
