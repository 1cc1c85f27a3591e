// A fake OpenAI-compatible chat-completions server on loopback.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

export type Reply = (call: RecordedCall, response: ServerResponse) => void;

export interface FakeModel {
  baseUrl: string;
  calls: RecordedCall[];
  reply: Reply;
  close(): Promise<void>;
}

/** A completion envelope whose message content is `content`. */
export function completion(content: string): string {
  return JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
  });
}

export function json(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(body);
}

export async function startFakeModel(reply: Reply): Promise<FakeModel> {
  const calls: RecordedCall[] = [];
  const fake: FakeModel = {
    baseUrl: "",
    calls,
    reply,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const call: RecordedCall = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      calls.push(call);
      fake.reply(call, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
