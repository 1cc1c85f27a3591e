import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { runPicks } from "../../helpers/processes.ts";
import { SUBMISSION } from "../submissions/helpers.ts";

/** One request the receiver got, with whether `standardwebhooks` verified it with the path's secret. */
export interface Received {
  path: string;
  id: string;
  verified: boolean;
  type: string | null;
  body: string;
  headers: Record<string, string>;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse, count: number) => void;

/**
 * A webhook receiver on loopback: each path has its secret (set once the endpoint is created) and a
 * behaviour (default: 200). Every request is kept and verified the way a real receiver would.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
      );
      let verified = false;
      let type: string | null = null;
      const secret = secrets.get(path);
      if (secret) {
        try {
          type = (new Webhook(secret).verify(body, headers) as { type: string }).type;
          verified = true;
        } catch {}
      }
      received.push({ path, id: headers["webhook-id"] ?? "", verified, type, body, headers });
      const count = (counts.get(path) ?? 0) + 1;
      counts.set(path, count);
      const behave = behaviours.get(path);
      if (behave) behave(req, res, count);
      else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    secrets,
    behaviours,
    /** The verified deliveries to `path` of `type`. */
    of: (path: string, type: string) =>
      received.filter((r) => r.path === path && r.type === type && r.verified),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Issues a key of a paid tier with `picks keys issue`, on the store the environment names. */
export async function issuePaidKey(env: Record<string, string>, tier = "pro"): Promise<string> {
  const args = ["keys", "issue", "--tier", tier, "--email", "ops@example.org", "--label", "hooks", "--json"];
  const done = await runPicks(args, { ...process.env, ...env });
  if (done.code !== 0) throw new Error(done.stderr);
  return (JSON.parse(done.stdout) as { key: string }).key;
}

/** Creates an endpoint through the API and gives its secret to the receiver's path. */
export async function createEndpoint(
  server: string,
  key: string,
  receiver: Receiver,
  path: string,
  events: string[],
): Promise<{ id: string; secret: string }> {
  const answer = await fetch(`${server}/v1/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ url: `${receiver.base}${path}`, events, description: path }),
  });
  const body = (await answer.json()) as { id: string; secret: string };
  if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${JSON.stringify(body)}`);
  receiver.secrets.set(path, body.secret);
  return body;
}

/** Submits the test runtime, its page served by the receiver at /about; the submission's id. */
export async function submitRuntime(server: string, receiver: Receiver): Promise<number> {
  const submitted = await fetch(`${server}/v1/score/submit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...SUBMISSION, url: `${receiver.base}/about` }),
  });
  if (submitted.status !== 202)
    throw new Error(`submit answered ${submitted.status}: ${await submitted.text()}`);
  return ((await submitted.json()) as { submission_id: number }).submission_id;
}
