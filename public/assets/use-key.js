// "Use your key on this page", under the form that issues one: the key is checked against the server
// (GET /v1/me/profile, which spends no quota), kept by reader-key.js, and the reader's part of the page
// (thumbs, the For-you list) starts at once. "Forget the key" takes it all away again.

import { describeProblem } from "./api.js";
import { el, notice, replace } from "./dom.js";
import { forgetReaderKey, keepReaderKey, keyed, readerKey, remembered } from "./reader-key.js";
import { stylesheet } from "./stylesheet.js";

const reader = () => import("./for-you.js");

function inUse(profile) {
  const where = remembered() ? "remembered by this browser" : "kept in this tab until it is closed";
  return profile
    ? `This page uses key ${profile.key_id} (${profile.tier}), ${where}.`
    : `This page uses a key, ${where}.`;
}

/** The form, built into `section` after the key form's result. */
export async function setupUseKey(after) {
  await stylesheet("reader.css");
  const input = el("input", {
    attrs: {
      id: "use-key",
      name: "key",
      type: "password",
      required: true,
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "use-key-hint",
    },
  });
  const remember = el("input", { attrs: { id: "use-key-remember", name: "remember", type: "checkbox" } });
  const submit = el("button", { attrs: { type: "submit", id: "use-key-submit" }, text: "Use this key" });
  const forget = el("button", {
    className: "secondary",
    attrs: { type: "button", id: "forget-key" },
    text: "Forget the key",
  });
  const output = el("div", { className: "result", attrs: { id: "use-key-result", "aria-live": "polite" } });
  const form = el(
    "form",
    {
      className: "stacked use-key",
      attrs: { id: "use-key-form", "aria-labelledby": "use-key-heading", novalidate: true },
    },
    el("h3", { attrs: { id: "use-key-heading" }, text: "Use your key on this page" }),
    el("p", {
      className: "muted",
      text:
        "With a key, every card gets a thumbs up and a thumbs down that rate the paper for you, and “For you” " +
        "above the picks ranks each day's screened papers by your ratings and library. Ratings cost no " +
        "quota; each load of your list spends one call.",
    }),
    el(
      "div",
      { className: "field" },
      el("label", { attrs: { for: "use-key" }, text: "Your API key" }),
      input,
      el("p", {
        className: "hint",
        attrs: { id: "use-key-hint" },
        text: "It starts rp_; it is sent only to this site.",
      }),
    ),
    el(
      "div",
      { className: "field checkbox" },
      remember,
      el("label", {
        attrs: { for: "use-key-remember" },
        text: "Remember it in this browser (otherwise this tab only)",
      }),
    ),
    el("div", { className: "actions" }, submit, forget),
    output,
  );
  after.after(form);

  const showInUse = async () => {
    forget.hidden = !readerKey();
    if (!readerKey()) return;
    const { readerProfile } = await reader();
    replace(output, notice("info", inUse(readerProfile())));
  };
  void showInUse();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    input.removeAttribute("aria-invalid");
    if (!key) {
      input.setAttribute("aria-invalid", "true");
      replace(output, notice("error", "Enter your API key first."));
      input.focus();
      return;
    }
    submit.disabled = true;
    replace(output, notice("info", "Checking the key…"));
    const answer = await keyed("GET", "v1/me/profile", undefined, key);
    submit.disabled = false;
    if (!answer.ok) {
      // Only a refusal says the key is wrong; a server that is not there (a static host) or busy does not.
      if (answer.status === 401) input.setAttribute("aria-invalid", "true");
      const lead = answer.status === 401 ? "That key was not accepted:" : "The key could not be checked:";
      replace(output, notice("error", `${lead} ${describeProblem(answer).join(" ")}`));
      return;
    }
    const { startReader, stopReader } = await reader();
    // Another key's ratings may be on screen: start again from nothing.
    stopReader();
    const kept = keepReaderKey(key, remember.checked);
    input.value = "";
    await startReader();
    forget.hidden = false;
    replace(
      output,
      notice(
        "info",
        `${inUse(answer.body)} `,
        kept ? "" : "This browser refuses to keep it, so it lasts until the page is closed. ",
        el("a", { attrs: { href: "#picks" }, text: "Rate the picks, or open “For you”" }),
        ".",
      ),
    );
  });

  forget.addEventListener("click", async () => {
    forgetReaderKey();
    (await reader()).stopReader();
    forget.hidden = true;
    replace(output, notice("info", "The key is forgotten by this page: no thumbs and no list for you."));
    input.focus();
  });
  return form;
}
