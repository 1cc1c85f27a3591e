// POST /v1/verify of a short plain note to `recipient` at the server at `baseUrl`: a verification that needs no fixture.
export function verifyShortNote(baseUrl: string, recipient = "kim@example.org"): Promise<Response> {
  return fetch(`${baseUrl}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ subject: "Notes", body: "The notes from Tuesday.", recipient }),
  });
}
