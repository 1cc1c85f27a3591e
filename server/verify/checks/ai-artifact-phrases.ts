// The phrases that betray the model that drafted a message, with how much each weighs.

import type { Severity } from "../../../pipeline/domain/verify-request.ts";

export interface Artifact {
  phrase: string;
  severity: Severity;
  what: string;
}

const SELF_REFERENCE = [
  "as an ai language model",
  "as a language model",
  "as an ai model",
  "as an ai assistant",
  "as an ai,",
  "i'm an ai language model",
  "i am an ai language model",
  "i'm just an ai",
  "i am just an ai",
  "i'm only an ai",
  "my knowledge cutoff",
  "as of my last knowledge update",
  "as of my last update",
  "i don't have access to real-time",
  "i cannot browse the internet",
  "i can't browse the internet",
];

const PREAMBLES = [
  "here is the email:",
  "here's the email:",
  "here is an email",
  "here's an email",
  "here is a draft",
  "here's a draft",
  "here is your email",
  "here's your email",
  "here is the revised",
  "here's the revised",
  "here is a revised",
  "here's a revised",
  "here is a polished",
  "here's a polished",
  ...["certainly", "sure", "absolutely", "of course"].flatMap((opener) =>
    ["! here's", "! here is", ", here's", ", here is"].map((rest) => `${opener}${rest}`),
  ),
];

const COACHING = [
  "feel free to customize",
  "feel free to customise",
  "feel free to personalize",
  "feel free to personalise",
  "feel free to tweak",
  "let me know if you'd like me to",
  "let me know if you want me to",
];

const CHAT_TOKENS = [
  "[inst]",
  "[/inst]",
  "<<sys>>",
  "<</sys>>",
  "<start_of_turn>",
  "<end_of_turn>",
  "### instruction:",
  "### response:",
];

const INJECTIONS = ["ignore", "disregard", "forget"].flatMap((verb) =>
  ["", "all ", "any ", "the ", "all the "].flatMap((quantity) =>
    ["previous", "prior", "above", "earlier", "preceding"].flatMap((which) =>
      ["instructions", "prompts", "directions", "rules"].map((what) => `${verb} ${quantity}${which} ${what}`),
    ),
  ),
);

export const ARTIFACTS: readonly Artifact[] = [
  ...SELF_REFERENCE.map((phrase) => ({
    phrase,
    severity: "high" as const,
    what: "the model talking about itself",
  })),
  ...PREAMBLES.map((phrase) => ({ phrase, severity: "high" as const, what: "a chat preamble" })),
  ...COACHING.map((phrase) => ({
    phrase,
    severity: "medium" as const,
    what: "advice meant for the agent's user",
  })),
  ...CHAT_TOKENS.map((phrase) => ({ phrase, severity: "high" as const, what: "a chat-template token" })),
  ...INJECTIONS.map((phrase) => ({ phrase, severity: "high" as const, what: "a prompt-injection phrase" })),
];
