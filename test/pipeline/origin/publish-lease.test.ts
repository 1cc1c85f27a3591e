import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LEASE_KEY } from "../../../pipeline/domain/published-files.ts";
import { createFolderOrigin } from "../../../pipeline/origin/folder-origin.ts";
import type { OriginDriver } from "../../../pipeline/origin/origin.ts";
import {
  acquireLease,
  LEASE_MS,
  LeaseLostError,
  PublishConflictError,
  parseLease,
} from "../../../pipeline/origin/publish-lease.ts";

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

describe("a lease while the publish runs", () => {
  const later = (ms: number) => new Date(NOW.getTime() + ms);

  it("is lost to a publisher that took it after it ran out: the first stops before its next write", async () => {
    let clock = NOW.getTime();
    const first = await acquireLease(
      origin,
      () => new Date(clock),
      () => {},
    );
    await first.check();
    // The first publisher stalled past its 30 s without a renewal; the second takes the bucket.
    const second = await acquireLease(
      origin,
      () => later(LEASE_MS + 1_000),
      () => {},
    );
    clock += 2_000;
    await expect(first.check()).rejects.toThrow(LeaseLostError);
    await expect(first.renew()).rejects.toThrow(/stopped writing: its lease was taken over/);
    await first.fail("late");
    expect(parseLease(await origin.read(LEASE_KEY))?.failed).toBeUndefined();
    await second.release();
  });

  it("runs out by itself when it is not renewed for LEASE_MS", async () => {
    let clock = NOW.getTime();
    const lease = await acquireLease(
      origin,
      () => new Date(clock),
      () => {},
    );
    clock += LEASE_MS;
    expect(() => lease.assertHeld()).toThrow(/ran out unrenewed/);
    await lease.release();
  });

  it("is broken with breakLease, naming whose it was", async () => {
    let clock = NOW.getTime();
    const first = await acquireLease(
      origin,
      () => new Date(clock),
      () => {},
    );
    const warnings: string[] = [];
    await expect(
      acquireLease(
        origin,
        () => later(1_000),
        () => {},
      ),
    ).rejects.toThrow(/in progress \([0-9a-f]{16}, on host .+, pid \d+, started .*--break-lease/);
    const second = await acquireLease(
      origin,
      () => later(1_000),
      (message) => warnings.push(message),
      { breakLease: true },
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^breaking the publish lease of [0-9a-f]{16}, on host .+, pid \d+, started 2026-11-28T06:00:00.000Z$/,
      ),
    ]);
    clock += 2_000;
    await expect(first.check()).rejects.toThrow(LeaseLostError);
    expect(Number(second.token)).toBeGreaterThan(Number(first.token));
    await second.release();
  });

  it("is left marked failed and expired by a publish that failed, and taken at once by the next", async () => {
    const first = await acquireLease(
      origin,
      () => NOW,
      () => {},
    );
    await first.fail("403 AccessDenied on feed.xml");
    const stored = parseLease(await origin.read(LEASE_KEY));
    expect(stored?.failed).toEqual({ at: NOW.toISOString(), reason: "403 AccessDenied on feed.xml" });
    expect(stored?.expires_at).toBe(NOW.toISOString());
    const next = await acquireLease(
      origin,
      () => NOW,
      () => {},
    );
    await next.release();
    expect(await origin.read(LEASE_KEY)).toBeUndefined();
  });

  it("probes If-Match before anything is uploaded: a store that refuses it gets the warning and plain writes", async () => {
    const { ConditionsUnsupportedError } = await import("../../../pipeline/origin/origin.ts");
    const warnings: string[] = [];
    const noIfMatch: OriginDriver = {
      ...origin,
      async write(key, body, written, condition) {
        if (condition && "ifMatch" in condition) throw new ConditionsUnsupportedError("501 NotImplemented");
        return origin.write(key, body, written, condition);
      },
    };
    const lease = await acquireLease(
      noIfMatch,
      () => NOW,
      (message) => warnings.push(message),
    );
    expect(lease.conditional).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/does not support conditional writes/)]);
    await lease.renew();
    await lease.release();
  });
});
