// The picks filters and their place in the address: `?from=2026-11-14&to=2026-11-20&axis=A6&min=3&
// total=20&reg=3&group=governance`. A filtered view is a link; values that make no sense are dropped
// with a sentence saying so. The meaning of axis/min, total and reg is the one of GET /v1/papers
// (`axis` with `min_score`, `min_score` alone on the total, `min_reg_fit`), so both agree on a day.

export const AXES = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"];
export const GROUP_IDS = ["substrate", "governance", "research"];
const PARAMS = ["from", "to", "axis", "min", "total", "reg", "group"];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The longest range the page loads at once, in calendar days. */
export const MAX_RANGE_DAYS = 92;
/** Without from/to, the range is the last week of published days, as for GET /v1/papers. */
export const DEFAULT_RANGE_DAYS = 7;

const isDay = (value) => DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** `date` moved by `days` calendar days. */
export function addDays(date, days) {
  const time = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(time).toISOString().slice(0, 10);
}

function integer(raw, low, high) {
  if (!/^\d{1,2}$/.test(raw)) return null;
  const value = Number(raw);
  return value >= low && value <= high ? value : null;
}

/** True when the address asks for the filtered view at all. */
export const hasFilters = (params) => PARAMS.some((name) => params.has(name));

/**
 * The filters in `params`, each checked; `problems` names every value left out and why, in words a
 * reader can act on. Only the first value of a repeated parameter counts.
 */
export function readFilters(params) {
  const filters = { from: null, to: null, axis: null, min: null, total: null, reg: null, group: null };
  const problems = [];
  const raw = (name) => params.get(name);
  const reject = (name, expected) =>
    problems.push(`Ignored ${name}=${JSON.stringify(raw(name)).slice(1, -1)}: expected ${expected}.`);

  for (const name of ["from", "to"]) {
    if (!params.has(name)) continue;
    if (isDay(raw(name))) filters[name] = raw(name);
    else reject(name, "a day as YYYY-MM-DD");
  }
  if (filters.from && filters.to && filters.from > filters.to) {
    problems.push(`Ignored from=${filters.from}: it is after to=${filters.to}.`);
    filters.from = null;
  }
  if (params.has("axis")) {
    if (AXES.includes(raw("axis"))) filters.axis = raw("axis");
    else reject("axis", "one of A1 to A9");
  }
  if (params.has("min")) {
    const min = integer(raw("min"), 0, 5);
    if (min === null) reject("min", "a whole number from 0 to 5");
    else if (!filters.axis) problems.push("Ignored min: it needs an axis (axis=A1 to A9).");
    else filters.min = min;
  }
  if (params.has("total")) {
    const total = integer(raw("total"), 0, 45);
    if (total === null) reject("total", "a whole number from 0 to 45");
    else filters.total = total;
  }
  if (params.has("reg")) {
    const reg = integer(raw("reg"), 1, 3);
    if (reg === null) reject("reg", "1, 2 or 3");
    else filters.reg = reg;
  }
  if (params.has("group")) {
    if (GROUP_IDS.includes(raw("group"))) filters.group = raw("group");
    else reject("group", "substrate, governance or research");
  }
  return { filters, problems };
}

/** The address parameters of `filters`, in a fixed order, leaving out what is not set. */
export function filterParams(filters) {
  const params = new URLSearchParams();
  for (const name of PARAMS) {
    const value = filters[name];
    if (value !== null && value !== undefined && value !== "") params.set(name, String(value));
  }
  return params;
}

/** The first and last day the filters cover, given the newest published day. */
export function filterRange(filters, latest) {
  let to = filters.to ?? latest;
  let from = filters.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
  const notes = [];
  if (addDays(from, MAX_RANGE_DAYS - 1) < to) {
    from = addDays(to, -(MAX_RANGE_DAYS - 1));
    notes.push(`The page shows at most ${MAX_RANGE_DAYS} days at once: from ${from}.`);
  }
  if (latest && to > latest) to = latest;
  return { from, to, notes };
}

/** The groups a pick scores highest in (all of them on a tie). */
export function strongestGroups(pick) {
  const groups = pick.scores.groups;
  const best = Math.max(...GROUP_IDS.map((id) => groups[id] ?? 0));
  return GROUP_IDS.filter((id) => (groups[id] ?? 0) === best);
}

/** Whether a pick passes every filter that is set. */
export function matches(pick, filters) {
  const { scores } = pick;
  if (filters.axis && filters.min !== null && (scores.axes[filters.axis]?.score ?? 0) < filters.min)
    return false;
  if (filters.total !== null && scores.total < filters.total) return false;
  if (filters.reg !== null && scores.reg_fit.score < filters.reg) return false;
  if (filters.group && !strongestGroups(pick).includes(filters.group)) return false;
  return true;
}

/** The filters in words: "A6 at least 3, REG FIT at least 3". */
export function describeFilters(filters) {
  const parts = [];
  if (filters.axis && filters.min !== null) parts.push(`${filters.axis} at least ${filters.min}`);
  if (filters.total !== null) parts.push(`total at least ${filters.total}`);
  if (filters.reg !== null) parts.push(`REG FIT at least ${filters.reg}`);
  if (filters.group) parts.push(`strongest in ${filters.group}`);
  return parts.length ? parts.join(", ") : "no score filter";
}

/** Fills the filter form from `filters`. */
export function fillForm(form, filters, range) {
  form.elements.from.value = filters.from ?? range?.from ?? "";
  form.elements.to.value = filters.to ?? range?.to ?? "";
  form.elements.axis.value = filters.axis ?? "";
  form.elements.min.value = filters.min === null ? "" : String(filters.min);
  form.elements.total.value = filters.total === null ? "" : String(filters.total);
  form.elements.reg.value = filters.reg === null ? "" : String(filters.reg);
  form.elements.group.value = filters.group ?? "";
}

/** The form's values as address parameters (checked again by readFilters when read back). */
export function formParams(form) {
  const params = new URLSearchParams();
  for (const name of PARAMS) {
    const value = String(form.elements[name].value ?? "").trim();
    if (value !== "") params.set(name, value);
  }
  // A minimum score without its axis means nothing: the form leaves it out rather than complain.
  if (!params.has("axis")) params.delete("min");
  return params;
}
