// Getting a free key (POST /v1/keys). The key is shown once, with a copy button, the server's
// warning and a button that uses it on this page (use-key.js, the form below this one); refusals
// (422 field problems, 429 one key per address per day) are spelled out.

import { describeProblem, postJson } from "./api.js";
import { el, notice, replace } from "./dom.js";
import { setupUseKey } from "./use-key.js";

const LABELS = { email: "Email", label: "What it is for" };

async function copy(input, status) {
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = "Copied to the clipboard.";
  } catch {
    // No clipboard permission (or not a secure context): leave it selected for Ctrl+C.
    input.focus();
    input.select();
    status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
  }
}

function limitsText(limits) {
  const parts = [];
  if (typeof limits.calls_per_window === "number") {
    parts.push(`${limits.calls_per_window} calls per ${limits.window_days ?? 30} days`);
  }
  if (typeof limits.history_days === "number") parts.push(`${limits.history_days} days of history`);
  if (typeof limits.max_limit === "number") parts.push(`at most ${limits.max_limit} papers per call`);
  return parts.length ? `${parts.join(", ")}.` : "";
}

function issued(answer) {
  const input = el("input", {
    className: "key-value",
    attrs: { id: "issued-key", type: "text", readonly: true, spellcheck: "false", autocomplete: "off" },
  });
  input.value = answer.key;
  const status = el("p", { className: "copy-status", attrs: { role: "status" } });
  const button = el("button", { attrs: { type: "button" }, text: "Copy key" });
  button.addEventListener("click", () => copy(input, status));
  const use = el("button", {
    className: "secondary",
    attrs: { type: "button" },
    text: "Use it on this page",
  });
  use.addEventListener("click", () => {
    const form = document.getElementById("use-key-form");
    form.elements.namedItem("key").value = answer.key;
    form.requestSubmit();
  });
  return el(
    "div",
    { className: "issued" },
    el(
      "p",
      { className: "notice notice-warning" },
      el("strong", { text: "Copy it now. " }),
      answer.note ?? "",
    ),
    el("label", {
      className: "key-label",
      attrs: { for: "issued-key" },
      text: `Your ${answer.tier ?? "free"} key`,
    }),
    el("div", { className: "key-row" }, input, button),
    status,
    el("p", {}, use),
    el("p", { className: "muted", text: `Key id ${answer.key_id}. ${limitsText(answer.limits ?? {})}` }),
  );
}

/** Wires the key form to the service, and adds the form that uses a key on this page. */
export async function setupKeyForm(form, output) {
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      email: form.elements.namedItem("email").value.trim(),
      label: form.elements.namedItem("label").value.trim(),
    };
    button.disabled = true;
    replace(output, notice("info", "Asking for a key…"));
    const result = await postJson("v1/keys", body);
    button.disabled = false;
    for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    if (result.ok && result.status === 201 && typeof result.body?.key === "string") {
      replace(output, issued(result.body));
      form.reset();
      output.querySelector("button")?.focus();
      return;
    }
    if (result.status === 422 && Array.isArray(result.body?.detail)) {
      for (const issue of result.body.detail) {
        const name = issue?.loc?.[1];
        if (typeof name === "string") form.elements.namedItem(name)?.setAttribute("aria-invalid", "true");
      }
    }
    const lead = {
      422: "Please correct these fields:",
      429: "No key this time:",
    }[result.status];
    replace(
      output,
      notice(
        "error",
        el("p", { text: lead ?? "No key was issued:" }),
        el(
          "ul",
          {},
          describeProblem(result, LABELS).map((line) => el("li", { text: line })),
        ),
      ),
    );
  });
  await setupUseKey(output);
}
