import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;

/** The schema this code writes and reads; `PRAGMA user_version` of every database it has opened. */
export const SCHEMA_VERSION = 2;
/** `PRAGMA application_id`: marks a SQLite file as this service's state ("RPKS"). */
const APPLICATION_ID = 0x52504b53;

// `value` has no declared type, so SQLite keeps what it is given: JSON text for records, integers
// for counters and sequences, which `value + 1` then updates in place.
// Version 1 to 2: queued ids may wait until a time (`due`, epoch ms; 0 = at once), for delayed retries.
const MIGRATE_1_TO_2 = `
  ALTER TABLE queue ADD COLUMN due INTEGER NOT NULL DEFAULT 0;
  DROP INDEX queue_pending;
  CREATE INDEX queue_pending ON queue (name, due, position) WHERE token IS NULL;
`;

const SCHEMA = `
  CREATE TABLE kv (key TEXT PRIMARY KEY NOT NULL, value NOT NULL, expires_at INTEGER) WITHOUT ROWID;
  CREATE INDEX kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE queue (
    name TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, token TEXT, lease_until INTEGER,
    due INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (name, id)
  ) WITHOUT ROWID;
  CREATE INDEX queue_pending ON queue (name, due, position) WHERE token IS NULL;
  CREATE INDEX queue_leases ON queue (name, lease_until) WHERE token IS NOT NULL;
`;

// A push goes after the highest position of its queue: without this index, finding it read every row
// of the queue, 57 µs a push with 1,000 webhook deliveries queued and 270 µs with 5,000. Added to
// schema 2 without a new version: older code reads and writes a file with it unchanged.
const QUEUE_POSITIONS = "CREATE INDEX IF NOT EXISTS queue_positions ON queue (name, position)";

export interface OpenDatabaseOptions {
  /** The database file, or ":memory:". */
  path: string;
  /** `synchronous=FULL` (fsync at every commit) instead of NORMAL; see below. */
  fsync?: boolean;
  /** Runs once, inside the transaction that creates the schema of a new database. */
  onCreate?: (db: SqliteDatabase) => void;
}

/**
 * Opens (creating when missing) the state database, shared by every process of the service on this
 * machine. Checks before writing anything that the file is this service's database at a schema it
 * knows, and that its folder is writable, so a wrong or unwritable file fails here, not at the
 * first request.
 *
 * WAL lets readers run beside the one writer of the moment. `synchronous=NORMAL` in WAL mode syncs
 * at checkpoints, not at each commit: a committed write survives any crash of the process (it is in
 * the WAL, in the page cache), and a power loss can take back only the last commits, never corrupt
 * the file. The counters here are quotas and limits, so that trade is right by default; FULL (with
 * `fsync`) makes every answered count survive a power loss too, at one fsync per write.
 */
export function openDatabase(options: OpenDatabaseOptions): SqliteDatabase {
  const { path } = options;
  const inMemory = path === ":memory:";
  if (!inMemory) {
    assertWritableFolder(dirname(path));
    createPrivately(path);
  }
  let db: SqliteDatabase;
  try {
    // How long a statement waits for another process's write lock before it fails.
    db = new Database(path, { timeout: 5_000 });
  } catch (error) {
    throw new Error(`Expected to open the state database ${path}: ${reason(error)}`, { cause: error });
  }
  try {
    assertOurs(db, path);
    if (!inMemory) retryWhileBusy(() => db.pragma("journal_mode = WAL"));
    db.pragma(`synchronous = ${options.fsync ? "FULL" : "NORMAL"}`);
    retryWhileBusy(() =>
      db
        .transaction(() => {
          // Read again under the write lock: another process may have created the schema meanwhile.
          const version = db.pragma("user_version", { simple: true });
          if (version === 1) {
            db.exec(MIGRATE_1_TO_2);
            db.pragma(`user_version = ${SCHEMA_VERSION}`);
          }
          if (version === 0) {
            db.exec(SCHEMA);
            db.pragma(`application_id = ${APPLICATION_ID}`);
            db.pragma(`user_version = ${SCHEMA_VERSION}`);
          }
          db.exec(QUEUE_POSITIONS);
          if (version === 0) options.onCreate?.(db);
        })
        .immediate(),
    );
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StateDatabaseError) throw error;
    throw new Error(`Expected to open the state database ${path}: ${reason(error)}`, { cause: error });
  }
}

/**
 * Runs `work` again while SQLite answers SQLITE_BUSY, up to about 5 s. Two processes opening a new
 * file at once can deadlock on its locks (one turning it to WAL while the other commits the schema,
 * still in rollback mode); SQLite then answers one of them "database is locked" at once, without
 * waiting in the busy handler, so the wait is here. Only at open, so a synchronous sleep is fine.
 */
function retryWhileBusy<T>(work: () => T): T {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || attempt >= 250) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/** A database file this code must not use: another program's, or a newer schema's. */
class StateDatabaseError extends Error {}

function assertOurs(db: SqliteDatabase, path: string): void {
  let applicationId: unknown;
  let version: unknown;
  let tables: unknown;
  try {
    // One read transaction, so the three come from one state of the file: read one by one, a second
    // process creating the schema between them looked like another program's file (tables, no id).
    db.transaction(() => {
      applicationId = db.pragma("application_id", { simple: true });
      version = db.pragma("user_version", { simple: true });
      tables = db.prepare("SELECT count(*) FROM sqlite_schema").pluck().get();
    })();
  } catch (error) {
    throw new StateDatabaseError(`Expected ${path} to be a SQLite state database: ${reason(error)}`, {
      cause: error,
    });
  }
  if (applicationId === 0 && version === 0 && tables === 0) return; // new or empty
  if (applicationId !== APPLICATION_ID) {
    throw new StateDatabaseError(
      `Expected ${path} to be this service's state database, but it is another program's SQLite file`,
    );
  }
  if (typeof version !== "number" || version > SCHEMA_VERSION) {
    throw new StateDatabaseError(
      `Expected ${path} to have schema version ${SCHEMA_VERSION} or older, got ${String(version)}: ` +
        "it was written by a newer version of the service; run that version",
    );
  }
}

/**
 * The database holds key hashes, owners' addresses and the secret that keys client addresses, so it
 * is created by this process alone (exclusive create), readable by its user only (SQLite gives its
 * -wal and -shm files the same mode), and never through a symbolic link someone left in its place.
 */
function createPrivately(path: string): void {
  try {
    closeSync(
      openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600),
    );
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new Error(`Expected to create the state database ${path}: ${reason(error)}`, { cause: error });
    }
  }
  if (lstatSync(path).isSymbolicLink()) {
    throw new StateDatabaseError(`Expected ${path} to be the state database itself, not a symbolic link`);
  }
}

function assertWritableFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new Error(`Expected the state folder ${folder} to be writable: ${reason(error)}`, { cause: error });
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
