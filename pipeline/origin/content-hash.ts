import { createHash } from "node:crypto";

/** A file's content hash as the manifest and the objects' metadata record it: SHA-256, hex. */
export const contentHash = (body: Uint8Array): string => createHash("sha256").update(body).digest("hex");
