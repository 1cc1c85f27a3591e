import type { CheckResult } from "../../../pipeline/domain/verify-request.ts";
import type { Check } from "./check-types.ts";
import { localTime } from "./local-time.ts";

const ID = "send_window";
const NAME = "Send window";

/** With `weekend_block`, fails on Saturday and Sunday in the recipient's time zone. */
export const checkSendWindow: Check = (message, { now }): CheckResult => {
  const local = localTime(now, message.options.timezone);
  const when = `${local.weekday} ${local.clock} in ${local.timezone} (${local.iso})`;
  if (!message.options.weekend_block) {
    return {
      id: ID,
      name: NAME,
      status: "pass",
      severity: "info",
      message: `It is ${when}; weekend_block is off, so any day is fine.`,
      evidence: [],
    };
  }
  if (local.isWeekend) {
    return {
      id: ID,
      name: NAME,
      status: "fail",
      severity: "high",
      message:
        `It is ${when}, a weekend day, and weekend_block is on. ` +
        `Schedule the message for Monday in ${local.timezone}, or turn weekend_block off.`,
      evidence: [],
    };
  }
  return {
    id: ID,
    name: NAME,
    status: "pass",
    severity: "info",
    message: `It is ${when}, a weekday; weekend_block is satisfied.`,
    evidence: [],
  };
};
