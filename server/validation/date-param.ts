// A `date` path parameter validated the way pydantic v2 validates `datetime.date` from a string,
// so a malformed day gets the same 422 as the original service. Reasons follow speedate's wording.

export interface DateIssue {
  type: "date_from_datetime_parsing";
  msg: string;
}

const DIGIT = /^\d+$/;

function reason(value: string): string | undefined {
  if (value.length < 10) return "input is too short";
  if (!DIGIT.test(value.slice(0, 4))) return "invalid character in year";
  if (value[4] !== "-") return "invalid date separator, expected `-`";
  if (!DIGIT.test(value.slice(5, 7))) return "invalid character in month";
  if (value[7] !== "-") return "invalid date separator, expected `-`";
  if (!DIGIT.test(value.slice(8, 10))) return "invalid character in day";
  if (value.length > 10) return "unexpected extra characters at the end of the input";
  const [year, month, day] = [
    Number(value.slice(0, 4)),
    Number(value.slice(5, 7)),
    Number(value.slice(8, 10)),
  ];
  if (month < 1 || month > 12) return "month value is outside expected range of 1-12";
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return "day value is outside expected range";
  return undefined;
}

/** Undefined for a real calendar day written YYYY-MM-DD, else pydantic's error for it. */
export function checkDateParam(value: string): DateIssue | undefined {
  const why = reason(value);
  return why === undefined
    ? undefined
    : { type: "date_from_datetime_parsing", msg: `Input should be a valid date or datetime, ${why}` };
}
