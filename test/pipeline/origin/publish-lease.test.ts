import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LEASE_KEY } from "../../../pipeline/domain/published-files.ts";
import { createFolderOrigin } from "../../../pipeline/origin/folder-origin.ts";
import type { OriginDriver } from "../../../pipeline/origin/origin.ts";
import { acquireLease, PublishConflictError } from "../../../pipeline/origin/publish-lease.ts";

// The lease's rounds, on the folder driver: the same contract as the bucket's (contract.test.ts), and
// a place where the moments between a look and a write can be chosen.

const NOW = new Date("2026-11-28T06:00:00Z");
const meta = { contentType: "application/json", cacheControl: "no-store", sha256: "" };
const leaseUntil = (iso: string) => Buffer.from(JSON.stringify({ holder: "other", expires_at: iso }));

let root: string;
let origin: OriginDriver;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "picks-lease-"));
  origin = createFolderOrigin({ dir: root });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("acquireLease", () => {
  it("takes a free bucket, and gives it back", async () => {
    const lease = await acquireLease(
      origin,
      () => NOW,
      () => {},
    );
    expect(lease.conditional).toBe(true);
    expect(await origin.read(LEASE_KEY)).toBeDefined();
    await lease.release();
    expect(await origin.read(LEASE_KEY)).toBeUndefined();
  });

  it("stops while another publisher's lease runs, leaving it as it was", async () => {
    await origin.write(LEASE_KEY, leaseUntil("2026-11-28T06:05:00.000Z"), meta);
    await expect(
      acquireLease(
        origin,
        () => NOW,
        () => {},
      ),
    ).rejects.toThrow(PublishConflictError);
    expect((await origin.read(LEASE_KEY))?.toString()).toContain('"holder":"other"');
  });

  it("takes over an expired or unreadable lease", async () => {
    for (const body of [leaseUntil("2026-11-28T05:00:00.000Z"), Buffer.from("{torn")]) {
      await origin.write(LEASE_KEY, body, meta);
      const lease = await acquireLease(
        origin,
        () => NOW,
        () => {},
      );
      expect((await origin.read(LEASE_KEY))?.toString()).not.toContain('"holder":"other"');
      await lease.release();
    }
  });

  // Regression: a lease released between this publisher's HEAD and its GET was read as expired and
  // taken over with If-Match on an object that was gone; a bucket answers that 404, and the publish
  // failed with a storage error instead of taking the free lease.
  it("takes a lease released between its look at it and its read of it", async () => {
    await origin.write(LEASE_KEY, leaseUntil("2026-11-28T06:05:00.000Z"), meta);
    const releasing: OriginDriver = {
      ...origin,
      async head(key) {
        const seen = await origin.head(key);
        await origin.remove(key);
        return seen;
      },
    };
    const lease = await acquireLease(
      releasing,
      () => NOW,
      () => {},
    );
    expect(lease.conditional).toBe(true);
    expect((await origin.read(LEASE_KEY))?.toString()).not.toContain('"holder":"other"');
  });

  it("goes on without a lease, once warned, where the store cannot check conditions", async () => {
    const { ConditionsUnsupportedError } = await import("../../../pipeline/origin/origin.ts");
    const warnings: string[] = [];
    const unconditional: OriginDriver = {
      ...origin,
      async write(key, body, written, condition) {
        if (condition) throw new ConditionsUnsupportedError("no conditional writes here");
        return origin.write(key, body, written);
      },
    };
    const lease = await acquireLease(
      unconditional,
      () => NOW,
      (message) => warnings.push(message),
    );
    expect(lease.conditional).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not support conditional writes/);
  });
});

describe("releasing the lease", () => {
  // Regression: a publisher whose lease ran out and was taken over deleted the new holder's lease on
  // release, letting a third publisher in beside the second.
  it("leaves a lease another publisher took over", async () => {
    const first = await acquireLease(
      origin,
      () => NOW,
      () => {},
    );
    const later = new Date(NOW.getTime() + 11 * 60_000);
    const second = await acquireLease(
      origin,
      () => later,
      () => {},
    );
    const held = (await origin.read(LEASE_KEY))?.toString();
    await first.release();
    expect((await origin.read(LEASE_KEY))?.toString()).toBe(held);
    await second.release();
    expect(await origin.read(LEASE_KEY)).toBeUndefined();
  });
});
