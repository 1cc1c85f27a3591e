// The reader's words for selection's decision. The run record keeps the operator's wording
// (`REG FIT 1 < 2 (total 9 >= 6)`); the screened file says the same thing to a reader. Both come
// from one decision: this reads the record's reason back, it never decides again.

/** What kind of decision a run record's reason is. */
export type ReasonKind =
  | "picked"
  | "below_total"
  | "below_reg_fit"
  | "below_must_read"
  | "off_topic"
  | "over_daily_max"
  | "other";

export interface ReaderReason {
  kind: ReasonKind;
  text: string;
}

const NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** `6` as "six", up to ten, then digits: how a reader writes a small count. */
function countWord(count: number): string {
  return NUMBER_WORDS[count] ?? String(count);
}

const percent = (likelihood: string): string => `${Math.round(Number(likelihood) * 100)}%`;

// The wordings of pipeline/domain/selection.ts, each with the figures it carries.
const KEPT = /^kept: .*rank (\d+)$/;
const BELOW_TOTAL = /^below threshold: total (\d+) < (\d+)$/;
const BELOW_REG_FIT = /^REG FIT (\d) < (\d)/;
const BELOW_MUST_READ = /^must-read likelihood ([\d.]+) < ([\d.]+)$/;
const OFF_TOPIC = /^on-topic probability ([\d.]+) < ([\d.]+)$/;
const OVER_MAX = /^cleared threshold \(.*\) but over the daily maximum of (\d+)$/;

/**
 * A run record's reason in a reader's words. `offMission` says the rubric found the paper off the
 * digest's mission (its focus level), which a floor refusal then names as the cause. A reason in no
 * known wording (a run record from an older selection) is passed through as it is.
 *
 * @example readerReason("REG FIT 1 < 2 (total 9 >= 6)").text // "below the rubric's floor: REG FIT 1, needs 2"
 */
export function readerReason(reason: string, offMission = false): ReaderReason {
  let match = KEPT.exec(reason);
  if (match) return { kind: "picked", text: `picked, rank ${match[1]} of the day` };
  match = BELOW_TOTAL.exec(reason);
  if (match) {
    const floor = `rubric total ${match[1]}, needs ${match[2]}`;
    return offMission
      ? { kind: "below_total", text: `off topic for this digest (${floor})` }
      : { kind: "below_total", text: `below the rubric's floor: ${floor}` };
  }
  match = BELOW_REG_FIT.exec(reason);
  if (match) {
    return {
      kind: "below_reg_fit",
      text: `below the rubric's floor: REG FIT ${match[1]}, needs ${match[2]}`,
    };
  }
  match = BELOW_MUST_READ.exec(reason);
  if (match) {
    return {
      kind: "below_must_read",
      text: `unlikely to be a must-read: ${percent(match[1] as string)}, needs ${percent(match[2] as string)}`,
    };
  }
  match = OFF_TOPIC.exec(reason);
  if (match) {
    return {
      kind: "off_topic",
      text: `off topic for this digest: on-topic likelihood ${percent(match[1] as string)}, needs ${percent(match[2] as string)}`,
    };
  }
  match = OVER_MAX.exec(reason);
  if (match) {
    return { kind: "over_daily_max", text: `the day's ${countWord(Number(match[1]))} were already chosen` };
  }
  return { kind: "other", text: reason };
}
