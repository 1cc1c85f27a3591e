import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { z } from "zod";
import { LEASE_KEY } from "../domain/published-files.ts";
import {
  ConditionFailedError,
  ConditionsUnsupportedError,
  type OriginDriver,
  type WriteCondition,
} from "./origin.ts";

// One publisher at a time per bucket and prefix. The lease is an object created only if absent (or
// taken over only if unchanged since it was seen expired), so of two publishers started together one
// stops before it has written anything. It is short and renewed while the publish runs: a publisher
// killed with -9 holds the bucket for at most LEASE_MS. The renewal is a write with If-Match on the
// lease as this publisher last wrote it, so it is also the check that the lease is still this
// publisher's: before each phase and, from the renewal timer, before each write. Its token (the fence)
// is stored with every object the publisher writes. A store cannot refuse a write by that token: an
// upload already in flight when the lease is lost still lands, and only the content-addressed objects
// (which servers read) are safe from it by construction.

/** How long a lease runs without renewal: a dead publisher's lease ends within this. */
export const LEASE_MS = 30_000;

export const LeaseRecordSchema = z.object({
  holder: z.string(),
  expires_at: z.iso.datetime(),
  token: z.number().int().nonnegative().optional(),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  started_at: z.iso.datetime().optional(),
  /** Set by a publisher that failed: the lease is then expired, and servers' `/health` says why. */
  failed: z.object({ at: z.iso.datetime(), reason: z.string() }).optional(),
});
export type LeaseRecord = z.infer<typeof LeaseRecordSchema>;

/** A stored lease, or undefined for one that cannot be read (it is taken over). */
export function parseLease(body: Uint8Array | undefined): LeaseRecord | undefined {
  if (!body) return undefined;
  try {
    const lease = LeaseRecordSchema.safeParse(JSON.parse(new TextDecoder().decode(body)));
    return lease.success ? lease.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whose lease it is, in words: `4f2a... on host curate-1, pid 4242, started 2026-...`. */
export function describeLease(lease: LeaseRecord): string {
  return [
    lease.holder,
    lease.host ? `on host ${lease.host}` : "",
    lease.pid ? `pid ${lease.pid}` : "",
    lease.started_at ? `started ${lease.started_at}` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** Another publisher holds the bucket: nothing was written. */
export class PublishConflictError extends Error {
  override name = "PublishConflictError";
}

/** This publisher's lease ran out and another publisher took it: it stopped writing. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

export interface Lease {
  /** False on a store without conditional writes: publishers are then not kept apart. */
  conditional: boolean;
  /** The fencing token, stored with each object written under this lease. */
  token: string;
  /** Throws LeaseLostError once the lease is known lost or has run out unrenewed. */
  assertHeld(): void;
  /**
   * Before each write: looks at the stored lease (at most once a second, a HEAD) and throws
   * LeaseLostError when it is no longer the one this publisher wrote.
   */
  check(): Promise<void>;
  /**
   * Before each phase: renews the lease (or, renewed in the last LEASE_MS / 6, looks at it); throws
   * LeaseLostError when it is no longer this publisher's.
   */
  renew(): Promise<void>;
  /** Gives the lease back after a publish that completed. */
  release(): Promise<void>;
  /** Gives it back marked failed (expired at once): the next publish need not wait, servers say why. */
  fail(reason: string): Promise<void>;
}

export interface LeaseOptions {
  /** Take over a lease that is still running (its holder is known dead), saying whose it was. */
  breakLease?: boolean;
  leaseMs?: number;
}

/** How stale a publisher's last look at its lease may be when it writes. */
const CHECK_MS = 1_000;

const META = { contentType: "application/json", cacheControl: "no-store", sha256: "" };

export async function acquireLease(
  origin: OriginDriver,
  now: () => Date,
  warn: (message: string) => void,
  options: LeaseOptions = {},
): Promise<Lease> {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const holder = randomBytes(8).toString("hex");
  const startedAt = now().toISOString();
  let token = now().getTime();
  const record = (extra: Partial<LeaseRecord> = {}): Buffer =>
    Buffer.from(
      JSON.stringify({
        holder,
        token,
        host: hostname(),
        pid: process.pid,
        started_at: startedAt,
        expires_at: new Date(now().getTime() + leaseMs).toISOString(),
        ...extra,
      } satisfies LeaseRecord),
    );
  const attempt = (condition: WriteCondition | undefined) =>
    origin.write(LEASE_KEY, record(), META, condition);
  let mine = "";
  let conditional = true;
  // A few rounds: a lease can be released between this publisher's look at it and its next write.
  for (let round = 0; ; round++) {
    try {
      mine = (await attempt({ ifNoneMatch: "*" })).etag;
      break;
    } catch (error) {
      if (error instanceof ConditionsUnsupportedError) {
        conditional = false;
        break;
      }
      if (!(error instanceof ConditionFailedError)) throw error;
    }
    const held = await origin.head(LEASE_KEY);
    const stored = held ? await origin.read(LEASE_KEY, 64 * 1024) : undefined;
    if (held && stored) {
      const lease = parseLease(stored);
      const until = lease ? Date.parse(lease.expires_at) : 0;
      token = Math.max(token, (lease?.token ?? 0) + 1);
      if (until > now().getTime() && !lease?.failed) {
        if (!options.breakLease) {
          throw new PublishConflictError(
            `another publish to ${origin.label} is in progress (${lease ? describeLease(lease) : "unknown"}; ` +
              `its lease runs until ${new Date(until).toISOString()}, at most ${leaseMs / 1000} s after its ` +
              "last renewal); nothing was written. If that publisher is dead, wait for its lease to end or " +
              "run again with --break-lease",
          );
        }
        warn(`breaking the publish lease of ${lease ? describeLease(lease) : "an unknown publisher"}`);
      }
      try {
        // An expired (or broken) lease: taken over only if nobody else took it meanwhile.
        mine = (await attempt({ ifMatch: held.etag })).etag;
        break;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    if (round >= 2) {
      throw new PublishConflictError(
        `another publish to ${origin.label} started just now; nothing was written`,
      );
    }
  }
  let renewedAt = now().getTime();
  // A renewal that succeeded is also a look at the lease.
  let checkedAt = 0;
  let lost: string | null = null;
  if (!conditional) {
    warn(`${origin.label} does not support conditional writes: two publishers at once are not detected`);
    // Still written, unconditionally: servers' `/health` shows a publish under way, and --break-lease
    // can say whose it is.
    mine = (await attempt(undefined)).etag;
  }

  let renewing: Promise<void> = Promise.resolve();
  const renewOnce = async (): Promise<void> => {
    if (lost) return;
    try {
      mine = (await attempt(conditional ? { ifMatch: mine } : undefined)).etag;
      renewedAt = now().getTime();
      checkedAt = renewedAt;
    } catch (error) {
      if (error instanceof ConditionFailedError) {
        lost = "its lease was taken over by another publisher";
      } else if (error instanceof ConditionsUnsupportedError && conditional) {
        // The store took If-None-Match but refuses If-Match (found here, before any upload): the
        // pointer's and the manifest's conditional writes would fail after everything else is uploaded.
        conditional = false;
        warn(`${origin.label} does not support conditional writes: two publishers at once are not detected`);
        mine = (await attempt(undefined)).etag;
        renewedAt = now().getTime();
      } else if (now().getTime() - renewedAt >= leaseMs) {
        lost = `its lease ran out unrenewed (${(error as Error).message})`;
      }
    }
  };
  const renew = (): Promise<void> => {
    renewing = renewing.then(renewOnce);
    return renewing;
  };
  // The probe of If-Match: the first renewal, before anything is uploaded.
  await renew();
  const timer = setInterval(() => void renew(), Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();

  const assertHeld = () => {
    if (!lost && now().getTime() - renewedAt >= leaseMs) lost = "its lease ran out unrenewed";
    if (lost) {
      throw new LeaseLostError(
        `this publish to ${origin.label} stopped writing: ${lost}; the bucket is as the other publisher leaves it`,
      );
    }
  };
  let checking: Promise<void> | null = null;
  const check = async (): Promise<void> => {
    assertHeld();
    if (!conditional || now().getTime() - checkedAt < CHECK_MS) return;
    checking ??= (async () => {
      await renewing;
      const stored = await origin.head(LEASE_KEY);
      if (!lost && stored?.etag !== mine) lost = "its lease was taken over by another publisher";
      checkedAt = now().getTime();
    })().finally(() => {
      checking = null;
    });
    await checking;
    assertHeld();
  };
  const stop = async () => {
    clearInterval(timer);
    await renewing;
  };
  return {
    get conditional() {
      return conditional;
    },
    token: String(token),
    assertHeld,
    check,
    async renew() {
      // Renewed a moment ago (the probe, the last phase): a look at the lease is enough, and costs a
      // HEAD rather than a PUT.
      if (now().getTime() - renewedAt < leaseMs / 6) return check();
      await renew();
      assertHeld();
    },
    async release() {
      await stop();
      // Only a lease still ours: one that ran out may have been taken over by another publisher, whose
      // lease this must not end.
      if (lost) return;
      if ((await origin.head(LEASE_KEY))?.etag === mine) await origin.remove(LEASE_KEY);
    },
    async fail(reason) {
      await stop();
      if (lost) return;
      const at = now().toISOString();
      const body = record({ expires_at: at, failed: { at, reason: reason.slice(0, 500) } });
      await origin.write(LEASE_KEY, body, META, conditional ? { ifMatch: mine } : undefined).catch(() => {});
    },
  };
}
