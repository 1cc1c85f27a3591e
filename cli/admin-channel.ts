import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { TierName } from "../pipeline/domain/tiers.ts";
import type { KeyRecord } from "../server/keys/key-service.ts";
import type { AdminKeyCommand } from "../server/routes/admin-routes.ts";

// The embedded file store has one owner. While `picks serve` owns it, `picks keys` reaches the
// store through the server instead: the server leaves its address and a fresh token in the state
// folder, readable by the operator's user only, and answers on loopback alone.

// A dot file: the file store takes every other `*.json` in its folder for a record.
const FILE = ".admin-channel.json";

interface Channel {
  pid: number;
  url: string;
  token: string;
}

/** Makes a token for this server run and leaves the channel file for `picks keys`. */
export async function openAdminChannel(stateDir: string, url: string): Promise<string> {
  const token = randomBytes(32).toString("hex");
  const path = join(stateDir, FILE);
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, "w", 0o600);
  await handle.writeFile(JSON.stringify({ pid: process.pid, url, token } satisfies Channel));
  await handle.close();
  await rename(temp, path);
  return token;
}

export async function closeAdminChannel(stateDir: string): Promise<void> {
  await rm(join(stateDir, FILE), { force: true });
}

export type PublicKeyRecord = Omit<KeyRecord, "hash">;

/** What the key commands need, from the store directly or through the running server. */
export interface KeyAdmin {
  issue(input: {
    tier: TierName;
    email: string;
    label: string;
  }): Promise<{ key: string; record: PublicKeyRecord }>;
  list(): Promise<PublicKeyRecord[]>;
  revoke(keyOrId: string): Promise<PublicKeyRecord | null>;
  rotate(keyOrId: string): Promise<{ key: string; record: PublicKeyRecord; old: PublicKeyRecord } | null>;
}

/** The running server's key commands, or undefined when no server left a channel. */
export async function remoteKeyAdmin(stateDir: string): Promise<KeyAdmin | undefined> {
  let channel: Channel;
  try {
    channel = JSON.parse(await readFile(join(stateDir, FILE), "utf8")) as Channel;
  } catch {
    return undefined;
  }
  const send = async <T>(command: AdminKeyCommand): Promise<T> => {
    const answer = await fetch(`${channel.url}/_admin/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${channel.token}` },
      body: JSON.stringify(command),
    });
    if (!answer.ok)
      throw new Error(`the running server (pid ${channel.pid}) refused the command: HTTP ${answer.status}`);
    return (await answer.json()) as T;
  };
  return {
    issue: (input) => send({ action: "issue", ...input }),
    list: async () => (await send<{ records: PublicKeyRecord[] }>({ action: "list" })).records,
    revoke: async (key) => (await send<{ record: PublicKeyRecord | null }>({ action: "revoke", key })).record,
    rotate: async (key) => {
      const answer = await send<
        { key: string; record: PublicKeyRecord; old: PublicKeyRecord } | { rotated: null }
      >({
        action: "rotate",
        key,
      });
      return "key" in answer ? answer : null;
    },
  };
}
