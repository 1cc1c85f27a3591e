import { describe, expect, it } from "vitest";
import {
  MANIFEST_VERSION,
  MAX_PUBLISHED_DAYS,
  type Manifest,
  type ManifestEntry,
  parseManifest,
  planPublish,
} from "../../../pipeline/domain/manifest.ts";
import { parseBucketUrl } from "../../../pipeline/domain/origin-url.ts";
import { byPublishOrder, publishPhase } from "../../../pipeline/domain/published-files.ts";

// The publisher's plan, pure: which objects and paths to upload, what the manifest keeps and drops.

const AT = "2026-11-23T06:00:00.000Z";
const entry = (sha: string, size = 10): ManifestEntry => ({
  sha256: sha.repeat(64).slice(0, 64),
  size,
  modified: AT,
});
const manifest = (files: Record<string, ManifestEntry>, version: 1 | 2 = MANIFEST_VERSION): Manifest => ({
  version,
  generated_at: AT,
  newest_day: null,
  files,
});

describe("planPublish", () => {
  const day = entry("a");
  const recent = entry("b");
  const pointer = entry("a");
  const local = new Map([
    ["v1/daily/2026-11-20.json", day],
    ["v1/recent.json", recent],
    ["v1/daily/latest.json", pointer],
  ]);

  it("uploads every object once (a day and the pointer share theirs) and every path in phase order", () => {
    const plan = planPublish(local, null, { objects: new Set() }, AT);
    expect([...plan.objects.keys()].sort()).toEqual([day.sha256, recent.sha256].sort());
    expect(plan.uploads).toEqual(["v1/daily/2026-11-20.json", "v1/recent.json", "v1/daily/latest.json"]);
    expect(plan.manifest).toMatchObject({ version: MANIFEST_VERSION, newest_day: "2026-11-20" });
  });

  it("writes nothing for an unchanged folder over a version-2 manifest", () => {
    const remote = manifest(Object.fromEntries(local));
    expect(planPublish(local, remote, null, AT).manifest).toBeNull();
    expect(
      planPublish(local, remote, { objects: new Set([day.sha256, recent.sha256]) }, AT).manifest,
    ).toBeNull();
  });

  it("uploads an object the store lacks even when its path is unchanged", () => {
    const remote = manifest(Object.fromEntries(local));
    const plan = planPublish(local, remote, { objects: new Set([day.sha256]) }, AT);
    expect([...plan.objects]).toEqual([[recent.sha256, "v1/recent.json"]]);
    expect(plan.uploads).toEqual([]);
    expect(plan.manifest).not.toBeNull();
  });

  it("keeps a day the folder lacks while the store holds its bytes, adopts a version-1 path, drops one with neither", () => {
    const kept = entry("c");
    const adopted = entry("d");
    const gone = entry("e");
    const remote = manifest(
      {
        ...Object.fromEntries(local),
        "v1/daily/2026-11-17.json": kept,
        "v1/daily/2026-11-18.json": adopted,
        "v1/daily/2026-11-19.json": gone,
      },
      1,
    );
    const plan = planPublish(
      local,
      remote,
      {
        objects: new Set([day.sha256, recent.sha256, kept.sha256]),
        paths: new Set(["site/ignored", "v1/daily/2026-11-18.json"]),
      },
      AT,
    );
    expect(plan.adopt).toEqual(["v1/daily/2026-11-18.json"]);
    expect(plan.dropped).toEqual(["v1/daily/2026-11-19.json"]);
    expect(Object.keys(plan.manifest?.files ?? {})).toEqual([
      "v1/daily/2026-11-17.json",
      "v1/daily/2026-11-18.json",
      "v1/daily/2026-11-20.json",
      "v1/daily/latest.json",
      "v1/recent.json",
    ]);
    // A version-1 manifest is always rewritten as version 2.
    expect(plan.manifest?.version).toBe(MANIFEST_VERSION);
  });
});

describe("publish phases", () => {
  it.each([
    ["v1/daily/2026-11-20.json", "days"],
    ["v1/screened/2026-11-20.json", "days"],
    ["assets/app.js", "assets"],
    ["feed.xml", "derived"],
    ["v1/daily/latest.json", "pointer"],
    ["v1/manifest.json", "manifest"],
  ])("%s is uploaded in the %s phase", (key, phase) => {
    expect(publishPhase(key)).toBe(phase);
  });

  it("orders keys by phase, then by name", () => {
    expect(
      [
        "v1/manifest.json",
        "feed.xml",
        "v1/daily/latest.json",
        "assets/a.css",
        "v1/daily/2026-11-20.json",
      ].sort(byPublishOrder),
    ).toEqual([
      "v1/daily/2026-11-20.json",
      "assets/a.css",
      "feed.xml",
      "v1/daily/latest.json",
      "v1/manifest.json",
    ]);
  });
});

describe("parseManifest refuses", () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  it.each([
    [
      "more days than a server holds",
      manifest(
        Object.fromEntries(
          Array.from({ length: MAX_PUBLISHED_DAYS + 1 }, (_, n) => [
            `v1/daily/${String(1000 + Math.floor(n / 336)).padStart(4, "0")}-${String((n % 12) + 1).padStart(2, "0")}-${String((Math.floor(n / 12) % 28) + 1).padStart(2, "0")}.json`,
            entry("f"),
          ]),
        ),
      ),
      /at most 7300 days/,
    ],
    [
      "a file larger than the cap",
      manifest({ "v1/recent.json": entry("a", 65 * 1024 * 1024) }),
      /files\.v1\/recent\.json\.size/,
    ],
    ["an unknown version", { ...manifest({}), version: 3 }, /version/],
    ["a key that climbs out", manifest({ "../x.json": entry("a") }), /files/],
  ])("%s", (_name, value, problem) => {
    const parsed = parseManifest(bytes(value));
    expect("problem" in parsed && parsed.problem).toMatch(problem);
  });

  it("accepts a version-1 manifest, as buckets published before objects hold", () => {
    expect(parseManifest(bytes(manifest({ "v1/recent.json": entry("a") }, 1)))).toMatchObject({ version: 1 });
  });
});

describe("parseBucketUrl", () => {
  it.each([
    "s3://AKIAEXAMPLE:wJalrXUtnFEMI@picks/x",
    "s3://picks/x?X-Amz-Credential=wJalrXUtnFEMI",
    "s3://picks/x#wJalrXUtnFEMI",
    "https://AKIAEXAMPLE:wJalrXUtnFEMI@host/",
  ])("refuses %s without repeating it", (url) => {
    const parsed = parseBucketUrl(url);
    expect(parsed).toMatchObject({ secret: true });
    expect(JSON.stringify(parsed)).not.toContain("wJalrXUtnFEMI");
    expect(JSON.stringify(parsed)).not.toContain("AKIAEXAMPLE");
  });
});
