import type { H3Event } from "h3";
import { clientIp, type TrustProxy } from "./client-ip.ts";

/** The client address of a request: the socket's, or a forwarded one behind configured proxies. */
export function requestIp(event: H3Event, trust: TrustProxy): string {
  const socket = (event.req as { ip?: string }).ip;
  return clientIp(socket, event.req.headers.get("x-forwarded-for"), trust);
}
