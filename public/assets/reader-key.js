// The reader's API key on this page, and the keyed calls made with it. This is the one place the key
// is kept: in this tab (sessionStorage) unless the reader asks this browser to remember it
// (localStorage). app.js only asks whether one is kept, by the same name, before loading anything.

import { request } from "./api.js";

const NAME = "picks-key";
/** The key of this page alone when the browser refuses storage. */
let unkept = null;

/** Storage can be refused (a sandboxed frame, a strict privacy mode): then no key is kept. */
function stores() {
  try {
    return [window.sessionStorage, window.localStorage];
  } catch {
    return [];
  }
}

/** The kept key, or null. */
export function readerKey() {
  for (const store of stores()) {
    const key = store.getItem(NAME);
    if (key) return key;
  }
  return unkept;
}

/** Whether the kept key is remembered by this browser, not only this tab. */
export const remembered = () => stores()[1]?.getItem(NAME) != null;

/** Keeps `key` in this tab, or in this browser when `remember`; false when storage is refused. */
export function keepReaderKey(key, remember) {
  forgetReaderKey();
  const [tab, browser] = stores();
  try {
    (remember ? browser : tab).setItem(NAME, key);
    return true;
  } catch {
    // Refused or full: the key serves this page until it is closed.
    unkept = key;
    return false;
  }
}

export function forgetReaderKey() {
  unkept = null;
  for (const store of stores()) store.removeItem(NAME);
}

/** A call to a `/v1/me/...` endpoint with the kept key (or `key`); the answer as api.js reads it. */
export function keyed(method, path, body, key = readerKey()) {
  const headers = { accept: "application/json", "x-api-key": key ?? "" };
  if (body !== undefined) headers["content-type"] = "application/json";
  return request(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    // The answers are private and never stored; the browser's cache is kept out of it too.
    cache: "no-store",
  });
}
