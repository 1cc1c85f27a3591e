import { randomBytes } from "node:crypto";
import { z } from "zod";
import { LEASE_KEY } from "../domain/published-files.ts";
import {
  ConditionFailedError,
  ConditionsUnsupportedError,
  type SnapshotOrigin,
  type WriteCondition,
} from "./origin.ts";

// One publisher at a time per bucket and prefix. The lease is an object created only if absent (or
// taken over only if unchanged since it was seen expired), so of two publishers started together one
// stops before it has written anything. The pointer's own conditional write guards the rest: a lease
// that expired during a very slow publish.

const LEASE_MS = 10 * 60 * 1000;

const LeaseSchema = z.object({ holder: z.string(), expires_at: z.iso.datetime() });

/** When a stored lease runs out; 0 for one that cannot be read (it is taken over). */
function expiryOf(body: Buffer | undefined): number {
  try {
    const lease = LeaseSchema.safeParse(JSON.parse(body?.toString("utf8") ?? "null"));
    return lease.success ? Date.parse(lease.data.expires_at) : 0;
  } catch {
    return 0;
  }
}

/** Another publisher holds the bucket: nothing was written. */
export class PublishConflictError extends Error {
  override name = "PublishConflictError";
}

export interface Lease {
  /** False on a store without conditional writes: publishers are then not kept apart. */
  conditional: boolean;
  release(): Promise<void>;
}

export async function acquireLease(
  origin: SnapshotOrigin,
  now: () => Date,
  warn: (message: string) => void,
): Promise<Lease> {
  const holder = randomBytes(8).toString("hex");
  const body = Buffer.from(
    JSON.stringify({ holder, expires_at: new Date(now().getTime() + LEASE_MS).toISOString() }),
  );
  const meta = { contentType: "application/json", cacheControl: "no-store", sha256: "" };
  const attempt = (condition: WriteCondition) => origin.write(LEASE_KEY, body, meta, condition);
  let mine = "";
  // A few rounds: a lease can be released between this publisher's look at it and its next write.
  for (let round = 0; ; round++) {
    try {
      mine = (await attempt({ ifNoneMatch: "*" })).etag;
      break;
    } catch (error) {
      if (error instanceof ConditionsUnsupportedError) {
        warn(
          `${origin.describe} does not support conditional writes: two publishers at once are not detected`,
        );
        return { conditional: false, release: async () => {} };
      }
      if (!(error instanceof ConditionFailedError)) throw error;
    }
    const held = await origin.head(LEASE_KEY);
    const stored = held ? await origin.read(LEASE_KEY) : undefined;
    if (held && stored) {
      const until = expiryOf(stored);
      if (until > now().getTime()) {
        throw new PublishConflictError(
          `another publish to ${origin.describe} is in progress (its lease runs until ${new Date(until).toISOString()}); nothing was written`,
        );
      }
      try {
        // An expired lease (a publisher that died): taken over only if nobody else took it meanwhile.
        mine = (await attempt({ ifMatch: held.etag })).etag;
        break;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    if (round >= 2) {
      throw new PublishConflictError(
        `another publish to ${origin.describe} started just now; nothing was written`,
      );
    }
  }
  return {
    conditional: true,
    async release() {
      // Only a lease still ours: one that ran out may have been taken over by another publisher, whose
      // lease this must not end.
      if ((await origin.head(LEASE_KEY))?.etag === mine) await origin.remove(LEASE_KEY);
    },
  };
}
