import { type Check, createFindings } from "./check-types.ts";
import { addressProblem, isNoReplyAddress, isReservedDomain } from "./email-address.ts";

const ID = "recipient";
const NAME = "Recipient address";

/** The recipient must be one bare, syntactically deliverable address. */
export const checkRecipient: Check = (message, { views }) => {
  const address = message.recipient;
  const findings = createFindings();
  const whole = () => views.span("recipient", 0, address.length);
  const problem = addressProblem(address);
  if (problem) {
    findings.add("fail", "high", `the recipient address is not valid: ${problem}`, whole);
  } else if (isNoReplyAddress(address)) {
    findings.add("warn", "low", "the recipient is a no-reply mailbox that nobody reads", whole);
  } else if (isReservedDomain(address)) {
    findings.add("warn", "low", "the recipient's domain is reserved for examples and tests", whole);
  }
  return findings.result(
    ID,
    NAME,
    "The recipient address is well-formed.",
    "Send to one bare, deliverable address such as jane.doe@company.com.",
  );
};
