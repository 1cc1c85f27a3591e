// The pre-send verification playground (POST /v1/verify): sends the form, then shows the verdict and
// every finding with its evidence marked in the text that was sent. The marks use the exact strings
// sent, so the server's code-point offsets line up with what is shown.

import { describeProblem, postJson } from "./api.js";
import { el, notice, replace } from "./dom.js";
import { excerpt, segments } from "./highlight.js";
import { stylesheet } from "./stylesheet.js";

await stylesheet("playground.css");

const FIELDS = ["subject", "body", "recipient", "campaign"];
const LABELS = {
  subject: "Subject",
  body: "Body",
  recipient: "Recipient",
  campaign: "Campaign",
  timezone: "Time zone",
  weekend_block: "Weekend block",
  redlist: "Red-listed terms",
};
const VERDICT_WORDS = {
  allow: "Nothing stops this message.",
  warn: "Look at the findings before sending.",
  block: "Do not send this message as it is.",
};

function readForm(form) {
  const value = (name) => form.elements.namedItem(name)?.value ?? "";
  return {
    subject: value("subject"),
    body: value("body"),
    recipient: value("recipient"),
    campaign: value("campaign"),
    options: {
      weekend_block: form.elements.namedItem("weekend_block")?.checked ?? false,
      timezone: value("timezone").trim() || "UTC",
      redlist: value("redlist")
        .split("\n")
        .map((term) => term.trim())
        .filter(Boolean),
    },
  };
}

/** Marked text: each run covered by evidence in a <mark>, the rest as plain text. */
function markedText(text, spans, tag = "pre") {
  return el(
    tag,
    { className: "marked" },
    segments(text, spans).map((run) => (run.marked ? el("mark", { text: run.text }) : run.text)),
  );
}

function evidenceItem(span, sent) {
  const text = sent[span.field] ?? "";
  const cut = excerpt(text, span);
  return el(
    "li",
    {},
    el("span", { className: "field-name", text: `${LABELS[span.field] ?? span.field}: ` }),
    el(
      "span",
      { className: "excerpt" },
      cut.cutBefore ? "…" : "",
      cut.before,
      el("mark", { text: cut.match || span.text }),
      cut.after,
      cut.cutAfter ? "…" : "",
    ),
  );
}

function findingItem(finding, sent) {
  return el(
    "li",
    { className: `finding status-${finding.status}` },
    el(
      "h4",
      {},
      `${finding.name} `,
      el("span", {
        className: `badge badge-${finding.status}`,
        text: `${finding.status} · ${finding.severity}`,
      }),
    ),
    el("p", { text: finding.message }),
    finding.evidence.length
      ? el(
          "ul",
          { className: "evidence" },
          finding.evidence.map((span) => evidenceItem(span, sent)),
        )
      : null,
  );
}

/** Checks that failed or warned, then the semantic review's findings, in one list. */
function findingsOf(answer) {
  const checks = answer.checks
    .filter((check) => check.status === "fail" || check.status === "warn")
    .map((check) => ({ ...check }));
  const semantic = (answer.semantic?.findings ?? []).map((finding) => ({
    name: `Semantic review: ${finding.kind.replaceAll("_", " ")}`,
    status: answer.semantic.status === "fail" ? "fail" : "warn",
    severity: "review",
    message: finding.message,
    evidence: finding.evidence ? [finding.evidence] : [],
  }));
  return [...checks, ...semantic];
}

function renderAnswer(output, answer, sent) {
  const findings = findingsOf(answer);
  const spans = findings.flatMap((finding) => finding.evidence);
  const shownFields = FIELDS.filter(
    (field) => field === "subject" || field === "body" || spans.some((span) => span.field === field),
  );
  const passed = answer.checks.filter((check) => check.status === "pass" || check.status === "skipped");
  replace(
    output,
    el(
      "div",
      { className: `verdict verdict-${answer.verdict}`, data: { verdict: answer.verdict } },
      el(
        "p",
        { className: "verdict-line" },
        el("strong", { className: "verdict-word", text: answer.verdict }),
        ` risk ${answer.risk.toFixed(2)}`,
      ),
      el("p", { text: VERDICT_WORDS[answer.verdict] ?? "" }),
      el("p", { className: "muted", text: answer.summary }),
    ),
    el("h3", { text: findings.length ? `Findings (${findings.length})` : "No findings" }),
    findings.length
      ? el(
          "ol",
          { className: "findings" },
          findings.map((finding) => findingItem(finding, sent)),
        )
      : null,
    el("h3", { text: "Your message, with the evidence marked" }),
    el(
      "dl",
      { className: "marked-message" },
      shownFields.map((field) => [
        el("dt", { text: LABELS[field] }),
        el(
          "dd",
          {},
          markedText(
            sent[field],
            spans.filter((span) => span.field === field),
          ),
        ),
      ]),
    ),
    passed.length
      ? el(
          "details",
          {},
          el("summary", { text: `${passed.length} checks passed or were skipped` }),
          el(
            "ul",
            {},
            passed.map((check) =>
              el("li", {}, el("strong", { text: check.name }), ` (${check.status}): ${check.message}`),
            ),
          ),
        )
      : null,
    el("p", {
      className: "muted",
      text:
        `Semantic review ${answer.semantic.status}: ${answer.semantic.reason} ` +
        `Checked at ${answer.metadata.local_time} ` +
        `(${answer.metadata.weekday}, ${answer.metadata.timezone}), ` +
        `checker ${answer.metadata.checker_version}.`,
    }),
  );
}

function markInvalid(form, issues) {
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  for (const issue of Array.isArray(issues) ? issues : []) {
    const name = Array.isArray(issue?.loc) ? issue.loc.at(issue.loc[1] === "options" ? 2 : 1) : null;
    const input = typeof name === "string" ? form.elements.namedItem(name) : null;
    input?.setAttribute?.("aria-invalid", "true");
  }
}

const EXAMPLE = {
  subject: "Quick follow-up on your evaluation",
  body:
    "Hi {{first_name}},\n\nThanks for the call on Tuesday. Our pilot cut review time by 40%." +
    "\n\nBest,\nSam",
  recipient: "priya.raman@example.com",
};

/** Wires the playground form to the service. */
export function setupPlayground(form, output) {
  const button = form.querySelector("button[type=submit]");
  form.querySelector("#verify-example")?.addEventListener("click", () => {
    for (const [name, value] of Object.entries(EXAMPLE)) form.elements.namedItem(name).value = value;
    form.elements.namedItem("subject").focus();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const sent = readForm(form);
    button.disabled = true;
    output.setAttribute("aria-busy", "true");
    replace(output, notice("info", "Checking…"));
    const result = await postJson("v1/verify", sent);
    button.disabled = false;
    output.removeAttribute("aria-busy");
    markInvalid(form, result.status === 422 ? result.body?.detail : []);
    if (result.ok && result.status === 200 && Array.isArray(result.body?.checks)) {
      renderAnswer(output, result.body, sent);
      return;
    }
    replace(
      output,
      notice(
        "error",
        el("p", { text: result.status === 422 ? "Please correct these fields:" : "The check did not run." }),
        el(
          "ul",
          {},
          describeProblem(result, LABELS).map((line) => el("li", { text: line })),
        ),
      ),
    );
  });
}
