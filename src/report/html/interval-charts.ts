/**
 * The page's interval charts, drawn for every report however little telemetry the runs have:
 * each tool's resolve rate with both its intervals, each pair's difference with the interval
 * its verdict rests on, and the slices. Rows carry their names at the left, so no label can
 * cover a mark. Inline SVG with every string escaped, like chart.ts.
 */
import { confidenceText, verdictCell, type ComparisonReport } from "../comparisons.js";
import { percent, percentInterval, points } from "../format.js";
import type { ToolReport } from "../model.js";
import type { SliceTable } from "../slices.js";
import { toolColor } from "./chart.js";
import { escapeHtml } from "./escape.js";

const WIDTH = 720;
const LEFT = 190;
const RIGHT = 96;
const TOP = 12;
const AXIS = 46;

/** Cuts a name to fit the left column (the full name is in the row's title). */
function fit(text: string, max = 26): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A rate axis from 0 to 100% along the bottom, with grid lines. */
function rateAxis(height: number): string {
  const plot = WIDTH - LEFT - RIGHT;
  return [0, 0.25, 0.5, 0.75, 1]
    .map((rate) => {
      const x = LEFT + plot * rate;
      return `<line class="grid" x1="${x}" x2="${x}" y1="${TOP}" y2="${height - AXIS + 4}"/><text class="tick" x="${x}" y="${height - AXIS + 20}" text-anchor="middle">${String(rate * 100)}%</text>`;
    })
    .join("");
}

const rateX = (rate: number): number => LEFT + (WIDTH - LEFT - RIGHT) * rate;

/** An interval as a line with end caps, a mark of the chart. */
function intervalLine(
  low: number,
  high: number,
  y: number,
  color: string,
  width: number,
  opacity = 1,
): string {
  const x1 = rateX(low);
  const x2 = rateX(high);
  const cap = width + 3;
  return (
    `<line class="mark" x1="${x1}" x2="${x2}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="${width}" stroke-opacity="${opacity}"/>` +
    `<line class="mark" x1="${x1}" x2="${x1}" y1="${y - cap}" y2="${y + cap}" stroke="${color}" stroke-width="1.5" stroke-opacity="${opacity}"/>` +
    `<line class="mark" x1="${x2}" x2="${x2}" y1="${y - cap}" y2="${y + cap}" stroke="${color}" stroke-width="1.5" stroke-opacity="${opacity}"/>`
  );
}

/**
 * Each tool's resolve rate on a row: the point, its Wilson interval over trials (thick) and its
 * bootstrap interval over tasks (thin, below).
 */
export function renderRateChart(tools: readonly ToolReport[]): string {
  const rowHeight = 40;
  const height = TOP + rowHeight * tools.length + AXIS;
  const rows = tools.map((tool, index) => {
    const { summary } = tool;
    const y = TOP + rowHeight * index + rowHeight / 2;
    const color = toolColor(index);
    const boot =
      summary.resolve_rate_boot_low === null || summary.resolve_rate_boot_high === null
        ? ""
        : intervalLine(
            summary.resolve_rate_boot_low,
            summary.resolve_rate_boot_high,
            y + 9,
            color,
            1.5,
            0.7,
          );
    const title = `${tool.label}: ${percent(summary.resolve_rate)}, Wilson 95% ${percentInterval(summary.resolve_rate_ci_low, summary.resolve_rate_ci_high)}, bootstrap 95% ${percentInterval(summary.resolve_rate_boot_low, summary.resolve_rate_boot_high)}`;
    return (
      `<g class="row"><title>${escapeHtml(title)}</title>` +
      `<text class="name" x="${LEFT - 12}" y="${y + 4}" text-anchor="end" fill="${color}">${escapeHtml(fit(tool.label))}</text>` +
      intervalLine(
        summary.resolve_rate_ci_low,
        summary.resolve_rate_ci_high,
        y - 2,
        color,
        5,
        0.45,
      ) +
      boot +
      `<circle class="mark" cx="${rateX(summary.resolve_rate)}" cy="${y - 2}" r="6" fill="${color}" stroke="#fff" stroke-width="1.5"/>` +
      `<text class="value" x="${WIDTH - RIGHT + 12}" y="${y + 2}">${escapeHtml(percent(summary.resolve_rate))}</text></g>`
    );
  });
  return `<svg class="chart" id="rate-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Resolve rate of each tool with its Wilson and bootstrap intervals">${rateAxis(height)}${rows.join("")}<text class="label" x="${rateX(0.5)}" y="${height - 4}" text-anchor="middle">resolve rate · thick: Wilson 95% (trials) · thin: bootstrap 95% (tasks)</text></svg>`;
}

/** A round half-width for the difference axis, in rate: 0.1, 0.2, 0.25, 0.5 or 1. */
function differenceSpan(comparisons: readonly ComparisonReport[]): number {
  const reach = Math.max(
    0.05,
    ...comparisons
      .filter((c) => c.verdict !== "not_compared")
      .flatMap((c) => [
        Math.abs(c.verdictInterval.low),
        Math.abs(c.verdictInterval.high),
        Math.abs(c.difference),
        c.detectable?.difference ?? 0,
      ])
      .filter((value) => Number.isFinite(value)),
  );
  return [0.1, 0.2, 0.25, 0.5, 1].find((span) => span >= reach) ?? 1;
}

const VERDICT_COLORS: Record<ComparisonReport["verdict"], string> = {
  better: "#15803d",
  worse: "#b91c1c",
  not_significant: "#6b7280",
  not_compared: "#9ca3af",
};

/**
 * Each pair's difference a - b on a row: the point, the interval its verdict rests on, and a
 * shaded band of the differences too small for its tasks to detect at 80% power.
 */
export function renderDifferenceChart(comparisons: readonly ComparisonReport[]): string {
  const rowHeight = 36;
  const height = TOP + rowHeight * comparisons.length + AXIS;
  const span = differenceSpan(comparisons);
  const plot = WIDTH - LEFT - RIGHT;
  const x = (difference: number): number =>
    LEFT + plot * ((Math.max(-span, Math.min(span, difference)) + span) / (2 * span));
  const ticks = [-span, -span / 2, 0, span / 2, span]
    .map(
      (value) =>
        `<line class="${value === 0 ? "zero" : "grid"}" x1="${x(value)}" x2="${x(value)}" y1="${TOP}" y2="${height - AXIS + 4}"/><text class="tick" x="${x(value)}" y="${height - AXIS + 20}" text-anchor="middle">${escapeHtml(value === 0 ? "0" : points(value))}</text>`,
    )
    .join("");
  const rows = comparisons.map((c, index) => {
    const y = TOP + rowHeight * index + rowHeight / 2;
    const color = VERDICT_COLORS[c.verdict];
    const name = `${fit(c.a, 12)} − ${fit(c.b, 12)}`;
    const head = `<text class="name" x="${LEFT - 12}" y="${y + 4}" text-anchor="end">${escapeHtml(name)}</text><text class="verdict" x="${WIDTH - RIGHT + 12}" y="${y + 4}" fill="${color}">${escapeHtml(verdictCell(c))}</text>`;
    if (c.verdict === "not_compared")
      return `<g class="row"><title>${escapeHtml(c.sentence)}</title>${head}<text class="empty" x="${x(0)}" y="${y + 4}" text-anchor="middle">no shared task</text></g>`;
    const band =
      c.detectable?.difference === null || c.detectable === null
        ? ""
        : `<rect class="mde" x="${x(-c.detectable.difference)}" y="${y - 11}" width="${x(c.detectable.difference) - x(-c.detectable.difference)}" height="22" rx="3"/>`;
    const { low, high } = c.verdictInterval;
    return (
      `<g class="row"><title>${escapeHtml(c.sentence)}</title>${band}${head}` +
      `<line class="mark" x1="${x(low)}" x2="${x(high)}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="3"/>` +
      `<line class="mark" x1="${x(low)}" x2="${x(low)}" y1="${y - 6}" y2="${y + 6}" stroke="${color}" stroke-width="1.5"/>` +
      `<line class="mark" x1="${x(high)}" x2="${x(high)}" y1="${y - 6}" y2="${y + 6}" stroke="${color}" stroke-width="1.5"/>` +
      `<circle class="mark" cx="${x(c.difference)}" cy="${y}" r="6" fill="${color}" stroke="#fff" stroke-width="1.5"/></g>`
    );
  });
  const confidences = [
    ...new Set(
      comparisons
        .filter((c) => c.verdict !== "not_compared")
        .map((c) => confidenceText(c.verdictConfidence)),
    ),
  ].join(", ");
  return `<svg class="chart" id="diff-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Each pair's difference in resolve rate with its interval and verdict">${ticks}${rows.join("")}<text class="label" x="${x(0)}" y="${height - 4}" text-anchor="middle">a − b in points · bars: ${escapeHtml(confidences || "–")} CI · shaded: too small to detect at 80% power</text></svg>`;
}

/**
 * One slice as a chart: a row per value, in it a point and Wilson interval per tool (colored as
 * everywhere on the page), the value and its task count at the left.
 */
export function renderSliceChart(slice: SliceTable, tools: readonly ToolReport[]): string {
  const step = 11;
  const rowHeight = 14 + step * tools.length;
  const height = TOP + rowHeight * slice.rows.length + AXIS;
  const rows = slice.rows.map((row, index) => {
    const top = TOP + rowHeight * index;
    const label = `${fit(row.value, 20)} (${String(row.tasks)})`;
    const marks = row.cells.map((cell, toolIndex) => {
      if (cell.rate === null) return "";
      const y = top + 7 + step * toolIndex + step / 2;
      const color = toolColor(toolIndex);
      return (
        `<g><title>${escapeHtml(`${cell.tool}, ${row.value}: ${percent(cell.rate)} ${percentInterval(cell.low, cell.high)} (${String(cell.resolved)}/${String(cell.trials)})`)}</title>` +
        intervalLine(cell.low, cell.high, y, color, 2, 0.8) +
        `<circle class="mark" cx="${rateX(cell.rate)}" cy="${y}" r="4" fill="${color}"/></g>`
      );
    });
    return `<g class="row"><line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${top + rowHeight}" y2="${top + rowHeight}"/><text class="name" x="${LEFT - 12}" y="${top + rowHeight / 2 + 4}" text-anchor="end">${escapeHtml(label)}</text>${marks.join("")}</g>`;
  });
  return `<svg class="chart slice-chart" id="slice-chart-${escapeHtml(slice.field)}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(`Resolve rate ${slice.title.toLowerCase()}`)}">${rateAxis(height)}${rows.join("")}<text class="label" x="${rateX(0.5)}" y="${height - 4}" text-anchor="middle">${escapeHtml(`resolve rate by ${slice.column} (tasks) · 95% Wilson intervals`)}</text></svg>`;
}
