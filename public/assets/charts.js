// The archive in figures, from stats.json: picks and keep rate per day, the distribution of each
// axis's scores, and the REG FIT histogram. Inline SVG; every figure is told apart by shape and
// label as well as colour, and each has a sentence that says what it shows.

import { el, formatDay, notice, replace } from "./dom.js";
import { GROUPS } from "./picks.js";
import { figureSvg, svg } from "./svg.js";

const percent = (value) => `${Math.round(value * 1000) / 10}%`;
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Picks kept per day as bars, keep rate as a dashed line with dots, on one time axis. */
function timeline(byDay) {
  const width = 640;
  const height = 240;
  const pad = { left: 36, right: 44, top: 16, bottom: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const maxKept = Math.max(1, ...byDay.map((day) => day.kept));
  const rates = byDay.map((day) => (day.screened ? day.kept / day.screened : 0));
  const maxRate = Math.max(0.01, ...rates);
  const step = plotW / byDay.length;
  const barW = Math.max(1, step * 0.7);
  const x = (index) => pad.left + index * step + (step - barW) / 2;
  const yKept = (kept) => pad.top + plotH - (kept / maxKept) * plotH;
  const yRate = (rate) => pad.top + plotH - (rate / maxRate) * plotH;
  const labelled = byDay.length <= 31;
  const bars = byDay.map((day, index) =>
    svg(
      "g",
      {},
      svg("rect", {
        class: "chart-bar",
        x: x(index).toFixed(1),
        y: yKept(day.kept).toFixed(1),
        width: barW.toFixed(1),
        height: (pad.top + plotH - yKept(day.kept)).toFixed(1),
      }),
      labelled
        ? svg(
            "text",
            {
              class: "chart-value",
              x: (x(index) + barW / 2).toFixed(1),
              y: (yKept(day.kept) - 3).toFixed(1),
            },
            String(day.kept),
          )
        : null,
    ),
  );
  const points = rates.map((rate, index) => [x(index) + barW / 2, yRate(rate)]);
  const line = svg("polyline", {
    class: "chart-line",
    points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" "),
  });
  const dots =
    byDay.length <= 62
      ? points.map(([px, py]) =>
          svg("circle", { class: "chart-dot", cx: px.toFixed(1), cy: py.toFixed(1), r: 3 }),
        )
      : [];
  const ticks = [...new Set([0, Math.floor((byDay.length - 1) / 2), byDay.length - 1])].map((index) =>
    svg(
      "text",
      { class: "chart-tick", x: (x(index) + barW / 2).toFixed(1), y: height - 22, "text-anchor": "middle" },
      formatDay(byDay[index].date).replace(/^\w+ /, ""),
    ),
  );
  const axes = [
    svg("line", {
      class: "chart-axis",
      x1: pad.left,
      y1: pad.top + plotH,
      x2: width - pad.right,
      y2: pad.top + plotH,
    }),
    svg(
      "text",
      { class: "chart-tick", x: pad.left - 6, y: pad.top + 4, "text-anchor": "end" },
      String(maxKept),
    ),
    svg("text", { class: "chart-tick", x: pad.left - 6, y: pad.top + plotH, "text-anchor": "end" }, "0"),
    svg("text", { class: "chart-tick", x: width - pad.right + 6, y: pad.top + 4 }, percent(maxRate)),
    svg("text", { class: "chart-tick", x: width - pad.right + 6, y: pad.top + plotH }, "0%"),
    svg("rect", { class: "chart-bar", x: pad.left, y: height - 12, width: 10, height: 10 }),
    svg("text", { class: "chart-tick", x: pad.left + 14, y: height - 3 }, "bars: picks kept (left scale)"),
    svg("line", {
      class: "chart-line",
      x1: pad.left + 230,
      y1: height - 7,
      x2: pad.left + 254,
      y2: height - 7,
    }),
    svg("circle", { class: "chart-dot", cx: pad.left + 242, cy: height - 7, r: 3 }),
    svg(
      "text",
      { class: "chart-tick", x: pad.left + 260, y: height - 3 },
      "dashed line: keep rate (right scale)",
    ),
  ];
  const kept = byDay.reduce((sum, day) => sum + day.kept, 0);
  const screened = byDay.reduce((sum, day) => sum + day.screened, 0);
  const busiest = byDay.reduce((a, b) => (b.kept > a.kept ? b : a));
  const summary =
    `${plural(byDay.length, "day")} from ${formatDay(byDay[0].date)} to ${formatDay(byDay.at(-1).date)}: ` +
    `${kept} picks kept of ${screened} papers screened (${percent(screened ? kept / screened : 0)}). ` +
    `The most in one day: ${busiest.kept} on ${formatDay(busiest.date)}. ` +
    `The keep rate ran from ${percent(Math.min(...rates))} to ${percent(maxRate)}.`;
  return {
    summary,
    figure: figureSvg(
      {
        width,
        height,
        title: "Picks and keep rate per day",
        description: summary,
        className: "chart chart-timeline",
      },
      axes,
      bars,
      line,
      dots,
      ticks,
    ),
  };
}

/** Six bars, one per score 0..5, each with its count written above it. */
function histogram({ counts, labels, title, description, className }) {
  const width = 200;
  const height = 120;
  const pad = { left: 8, right: 8, top: 16, bottom: 22 };
  const plotH = height - pad.top - pad.bottom;
  const step = (width - pad.left - pad.right) / counts.length;
  const max = Math.max(1, ...counts);
  const bars = counts.map((count, index) => {
    const barH = (count / max) * plotH;
    const x = pad.left + index * step + step * 0.15;
    return svg(
      "g",
      {},
      svg("rect", {
        class: "chart-bar",
        x: x.toFixed(1),
        y: (pad.top + plotH - barH).toFixed(1),
        width: (step * 0.7).toFixed(1),
        height: barH.toFixed(1),
      }),
      svg(
        "text",
        { class: "chart-value", x: (x + step * 0.35).toFixed(1), y: (pad.top + plotH - barH - 3).toFixed(1) },
        String(count),
      ),
      svg(
        "text",
        { class: "chart-tick", x: (x + step * 0.35).toFixed(1), y: height - 6, "text-anchor": "middle" },
        labels[index],
      ),
    );
  });
  const base = svg("line", {
    class: "chart-axis",
    x1: pad.left,
    y1: pad.top + plotH,
    x2: width - pad.right,
    y2: pad.top + plotH,
  });
  return figureSvg({ width, height, title, description, className: `chart ${className}` }, base, bars);
}

const mostCommon = (counts) => counts.indexOf(Math.max(...counts));

/** Fills `container` with the three figures, or says why there are none. */
export function renderCharts(container, stats, rubric) {
  if (!stats) {
    replace(container, notice("error", "Could not load stats.json, so there are no figures to draw."));
    return;
  }
  if (!stats.by_day?.length || !stats.axis_histograms) {
    replace(
      container,
      notice(
        "empty",
        stats.days
          ? "This site's stats.json predates the figures; the next curate run adds them."
          : "Nothing has been published yet.",
      ),
    );
    return;
  }
  const time = timeline(stats.by_day);
  const axisFigures = GROUPS.flatMap((group) =>
    group.axes.map((id) => {
      const counts = stats.axis_histograms[id] ?? [0, 0, 0, 0, 0, 0];
      const name = rubric.axes[id]?.name ?? id;
      const total = counts.reduce((a, b) => a + b, 0);
      const text = `${id} ${name}: ${counts.map((count, score) => `${count} at ${score}`).join(", ")}; most often ${mostCommon(counts)} (${stats.mean_axis_scores[id] ?? 0} on average over ${total} picks).`;
      return el(
        "figure",
        { className: `axis-figure group-${group.id}` },
        histogram({
          counts,
          labels: ["0", "1", "2", "3", "4", "5"],
          title: `${id} ${name}: picks by score`,
          description: text,
          className: "chart-axis-histogram",
        }),
        el(
          "figcaption",
          {},
          el("strong", { text: id }),
          ` ${name} `,
          el("span", { className: "muted", text: `(${group.name.toLowerCase()})` }),
        ),
      );
    }),
  );
  const reg = [1, 2, 3].map((score) => stats.reg_fit_histogram[String(score)] ?? 0);
  const regNames = [1, 2, 3].map((score) => rubric.regFitNames[score] ?? `REG FIT ${score}`);
  const regText = `REG FIT over ${reg.reduce((a, b) => a + b, 0)} picks: ${reg.map((count, index) => `${count} at ${index + 1} (${regNames[index]})`).join(", ")}.`;
  const axisMeans = Object.entries(stats.mean_axis_scores).sort((a, b) => b[1] - a[1]);
  const axesText = axisMeans.length
    ? `Highest mean: ${axisMeans[0][0]} (${axisMeans[0][1]}); lowest: ${axisMeans.at(-1)[0]} (${axisMeans.at(-1)[1]}), out of 5.`
    : "No picks yet.";
  replace(
    container,
    el(
      "figure",
      { className: "chart-figure" },
      el("figcaption", {}, el("h3", { text: "Picks and keep rate per day" })),
      time.figure,
      el("p", { className: "chart-summary", text: time.summary }),
    ),
    el(
      "figure",
      { className: "chart-figure" },
      el("figcaption", {}, el("h3", { text: "How the picks score on each axis" })),
      el("div", { className: "axis-figures" }, axisFigures),
      el("p", { className: "chart-summary", text: axesText }),
    ),
    el(
      "figure",
      { className: "chart-figure" },
      el("figcaption", {}, el("h3", { text: "REG FIT" })),
      histogram({
        counts: reg,
        labels: ["1", "2", "3"],
        title: "Picks by REG FIT",
        description: regText,
        className: "chart-regfit",
      }),
      el("p", { className: "chart-summary", text: regText }),
    ),
  );
}
