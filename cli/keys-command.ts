import type { Command } from "commander";
import { isFirmSlug } from "../pipeline/domain/bench-firm.ts";
import { FIRM_TIERS, TIERS, type TierName, TierNameSchema } from "../pipeline/domain/tiers.ts";
import { createKeyService, type KeyRecord, type KeyService } from "../server/access/key-service.ts";
import { configFromEnv } from "../server/config.ts";
import { createStoreFromEnv } from "../server/store/from-env.ts";
import type { Store } from "../server/store/types.ts";
import { endpointCount, moveEndpoints } from "../server/webhooks/key-endpoints.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";

const PAID_TIERS = TierNameSchema.options.filter((tier) => tier !== "free");

type PublicKeyRecord = Omit<KeyRecord, "hash">;

/**
 * Runs one operator command on the configured store. Servers and workers may have the same store
 * open meanwhile (SQLite or Redis): a new key works on them at once, a revocation within their key
 * cache's 5 seconds.
 */
async function withKeys<T>(fn: (keys: KeyService, store: Store) => Promise<T>): Promise<T> {
  const config = configFromEnv(process.env);
  const store = await createStoreFromEnv(process.env, { rootDir: PROJECT_ROOT });
  try {
    return await fn(createKeyService({ store, prefix: config.keyPrefix }), store);
  } finally {
    await store.close();
  }
}

function describe(record: PublicKeyRecord): string {
  const state = record.revoked_at === null ? "active" : `revoked ${record.revoked_at}`;
  const firm = record.firm ? `  firm ${record.firm}` : "";
  return `${record.id}  ${record.tier.padEnd(10)}  ${state.padEnd(32)}  ${record.created_at}  ${record.email}  ${record.label}${firm}`;
}

/** Without secrets: the hash stays in the store. */
const publicView = ({ hash: _hash, ...rest }: KeyRecord): PublicKeyRecord => rest;

function printIssued(out: Output, key: string, record: KeyRecord, note: string) {
  out.line(key);
  out.line(`${note} ${record.id} (${record.tier}). Store the key now: it is shown only this once.`);
  out.json({ key, ...publicView(record), limits: TIERS[record.tier] });
}

/** The firm of a key to issue: required for a firm tier, refused for the others. */
function firmFor(tier: TierName, firm: string | undefined): string | null {
  if (!FIRM_TIERS.includes(tier)) {
    if (firm !== undefined)
      throw new UsageError(`\`--firm\` applies only to \`--tier bench\`, not \`${tier}\``);
    return null;
  }
  if (firm === undefined) throw new UsageError(`Expected \`--firm <slug>\` with \`--tier ${tier}\``);
  if (!isFirmSlug(firm)) {
    throw new UsageError(
      `Expected \`--firm\` to be a slug of 2 to 40 lowercase letters, digits and single hyphens, got \`${firm.slice(0, 60)}\``,
    );
  }
  return firm;
}

export function registerKeys(program: Command): void {
  const keys = program.command("keys").description("issue, list, revoke and rotate API keys (operator)");

  keys
    .command("issue")
    .description("issue a key of a paid tier; prints the key once")
    .requiredOption("--tier <tier>", `one of ${PAID_TIERS.join(", ")}`)
    .requiredOption("--email <email>", "the owner's contact address")
    .requiredOption("--label <label>", "what the key is for")
    .option("--firm <slug>", "the firm a bench key belongs to (required for --tier bench, refused otherwise)")
    .option("--json", "print the result as JSON", false)
    .action(async (flags: { tier: string; email: string; label: string; firm?: string; json: boolean }) => {
      if (!(PAID_TIERS as string[]).includes(flags.tier)) {
        throw new UsageError(
          `Expected \`--tier\` to be one of ${PAID_TIERS.join(", ")}, got \`${flags.tier}\``,
        );
      }
      if (flags.email.length < 3 || flags.email.length > 120)
        throw new UsageError("Expected `--email` to have 3 to 120 characters");
      if (flags.label.length < 1 || flags.label.length > 80)
        throw new UsageError("Expected `--label` to have 1 to 80 characters");
      const firm = firmFor(flags.tier as TierName, flags.firm);
      const out = createOutput({ json: flags.json });
      const { key, record } = await withKeys((service) =>
        service.issue({ tier: flags.tier as TierName, email: flags.email, label: flags.label, firm }),
      );
      printIssued(out, key, record, "Issued");
    });

  keys
    .command("list")
    .description("list keys (no secrets)")
    .option("--json", "print the result as JSON", false)
    .action(async (flags: { json: boolean }) => {
      const out = createOutput({ json: flags.json });
      const records = await withKeys((service) => service.list());
      for (const record of records) out.line(describe(record));
      if (records.length === 0) out.line("No keys yet.");
      out.json(records.map(publicView));
    });

  keys
    .command("revoke <key-or-id>")
    .description("revoke a key at once")
    .action(async (keyOrId: string) => {
      const out = createOutput({ json: false });
      const revoked = await withKeys(async (service, store) => {
        const record = await service.revoke(keyOrId);
        return record && { record, endpoints: await endpointCount(store, record.id) };
      });
      if (!revoked) throw new UsageError(`No key matches \`${keyOrId.slice(0, 24)}\``);
      const { record, endpoints } = revoked;
      out.line(`Revoked ${record.id} (${record.tier}, ${record.label}).`);
      if (endpoints > 0) {
        out.line(`Disabled its ${endpoints} webhook endpoint(s): they receive no more events.`);
      }
    });

  keys
    .command("rotate <key-or-id>")
    .description("issue a replacement with the same tier and owner, and revoke the old key")
    .option("--json", "print the result as JSON", false)
    .action(async (keyOrId: string, flags: { json: boolean }) => {
      const out = createOutput({ json: flags.json });
      const result = await withKeys(async (service, store) => {
        const rotated = await service.rotate(keyOrId);
        return (
          rotated && { ...rotated, moved: await moveEndpoints(store, rotated.old.id, rotated.record.id) }
        );
      });
      if (!result) throw new UsageError(`No active key matches \`${keyOrId.slice(0, 24)}\``);
      printIssued(out, result.key, result.record, `Rotated ${result.old.id} to`);
      if (result.moved > 0) out.line(`Moved its ${result.moved} webhook endpoint(s) to the new key.`);
    });
}
