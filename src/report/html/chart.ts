/** Inline SVG charts: no script, no external font or file, so they render offline and in print. */
import type { ToolReport } from "../model.js";
import { escapeHtml } from "./escape.js";
import { placeLabel, type Box, type LabelSpot } from "./labels.js";

/** One color per tool, in report order; distinguishable on white and in grayscale. */
export const TOOL_COLORS = [
  "#2563eb",
  "#dc2626",
  "#059669",
  "#d97706",
  "#7c3aed",
  "#0891b2",
  "#db2777",
  "#4b5563",
];

/** The color of the i-th tool. */
export function toolColor(index: number): string {
  return TOOL_COLORS[index % TOOL_COLORS.length] ?? "#4b5563";
}

const WIDTH = 680;
const HEIGHT = 340;
const TOP = 16;
const BOTTOM = 52;
const RIGHT = 24;

/** A round step giving about `count` ticks up to max. */
function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let value = 0; value <= max + step * 1e-9; value += step) ticks.push(value);
  if ((ticks.at(-1) ?? 0) < max) ticks.push((ticks.at(-1) ?? 0) + step);
  return ticks;
}

/** Dollars with as many decimals as the tick step needs: $0.02, $0.04; $0.005, $0.010; $2. */
function money(value: number, step = value): string {
  if (value === 0) return "$0";
  if (step >= 1 && Number.isInteger(step)) return `$${value.toFixed(0)}`;
  let decimals = 2;
  while (decimals < 6 && Math.abs(step * 10 ** decimals - Math.round(step * 10 ** decimals)) > 1e-9)
    decimals++;
  return `$${value.toFixed(decimals)}`;
}

function yAxis(left: number, plotWidth: number): string {
  const plotHeight = HEIGHT - TOP - BOTTOM;
  return [0, 0.2, 0.4, 0.6, 0.8, 1]
    .map((rate) => {
      const y = TOP + plotHeight * (1 - rate);
      return `<line class="grid" x1="${left}" x2="${left + plotWidth}" y1="${y}" y2="${y}"/><text class="tick" x="${left - 8}" y="${y + 4}" text-anchor="end">${Math.round(rate * 100)}%</text>`;
    })
    .join("");
}

/**
 * Cost per task against resolve rate, each tool a point with its 95% Wilson interval. Tools
 * that reported no cost sit in a band of their own at the left, not at a made-up $0. Each name
 * goes where it covers no interval, point or other name (labels.ts).
 */
export function renderCostChart(tools: readonly ToolReport[]): string {
  const withCost = tools.filter((tool) => tool.summary.cost_per_task !== null);
  const bandCount = tools.length - withCost.length;
  // Layout from the left: the axis title, the "not reported" band, the tick labels, the plot.
  const bandLeft = 30;
  const bandWidth = bandCount === 0 ? 0 : Math.max(76, 64 * bandCount);
  const left = bandLeft + bandWidth + (bandCount > 0 ? 48 : 26);
  const plotWidth = WIDTH - left - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const ticks = niceTicks(Math.max(0, ...withCost.map((tool) => tool.summary.cost_per_task ?? 0)));
  const maxCost = ticks.at(-1) ?? 1;
  const y = (rate: number): number => TOP + plotHeight * (1 - rate);
  const parts: string[] = [];
  if (bandCount > 0) {
    parts.push(
      `<rect class="band" x="${bandLeft}" y="${TOP}" width="${bandWidth}" height="${plotHeight}" rx="4"/><text class="tick" x="${bandLeft + bandWidth / 2}" y="${TOP + plotHeight + 18}" text-anchor="middle">not reported</text>`,
    );
  }
  parts.push(yAxis(left, plotWidth));
  if (withCost.length > 0) {
    for (const tick of ticks) {
      const x = left + (plotWidth * tick) / maxCost;
      parts.push(
        `<line class="grid" x1="${x}" x2="${x}" y1="${TOP}" y2="${TOP + plotHeight}"/><text class="tick" x="${x}" y="${TOP + plotHeight + 18}" text-anchor="middle">${money(tick, (ticks[1] ?? maxCost) - (ticks[0] ?? 0))}</text>`,
      );
    }
  } else {
    parts.push(
      `<text class="empty" x="${left + plotWidth / 2}" y="${TOP + plotHeight / 2}" text-anchor="middle">No tool reported its cost</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${left}" x2="${left + plotWidth}" y1="${TOP + plotHeight}" y2="${TOP + plotHeight}"/>`,
    `<text class="label" x="${left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">cost per task (USD, total cost / tasks)</text>`,
    `<text class="label" transform="translate(14 ${TOP + plotHeight / 2}) rotate(-90)" text-anchor="middle">resolve rate (95% Wilson CI)</text>`,
  );
  let banded = 0;
  const points = tools.map((tool) => {
    const { summary } = tool;
    const x =
      summary.cost_per_task === null
        ? bandLeft + (bandWidth * (++banded - 0.5)) / bandCount
        : left + (plotWidth * summary.cost_per_task) / maxCost;
    return {
      tool,
      x,
      y: y(summary.resolve_rate),
      top: y(summary.resolve_rate_ci_high),
      bottom: y(summary.resolve_rate_ci_low),
    };
  });
  // Every interval bar and point is an obstacle to every name.
  const obstacles: Box[] = points.flatMap((point) => [
    { x1: point.x - 6, y1: point.top - 1, x2: point.x + 6, y2: point.bottom + 1 },
    { x1: point.x - 7.5, y1: point.y - 7.5, x2: point.x + 7.5, y2: point.y + 7.5 },
  ]);
  const bounds: Box = { x1: bandLeft, y1: 0, x2: WIDTH, y2: TOP + plotHeight };
  points.forEach((point, index) => {
    const { tool, x } = point;
    const { summary } = tool;
    const color = toolColor(index);
    const title = `${tool.label}: ${(summary.resolve_rate * 100).toFixed(1)}% resolved [${(summary.resolve_rate_ci_low * 100).toFixed(1)}, ${(summary.resolve_rate_ci_high * 100).toFixed(1)}], cost per task ${summary.cost_per_task === null ? "not reported" : money(summary.cost_per_task)}`;
    const spots: LabelSpot[] = [
      { x: x + 11, y: point.y + 4, anchor: "start" },
      { x: x - 11, y: point.y + 4, anchor: "end" },
      { x, y: point.top - 6, anchor: "middle" },
      { x, y: point.bottom + 16, anchor: "middle" },
      ...[14, -14, 28, -28, 42, -42].flatMap((dy) => [
        { x: x + 11, y: point.y + 4 + dy, anchor: "start" as const },
        { x: x - 11, y: point.y + 4 + dy, anchor: "end" as const },
      ]),
      { x, y: point.top - 20, anchor: "middle" },
      { x, y: point.bottom + 30, anchor: "middle" },
    ];
    const spot = placeLabel(spots, tool.label, obstacles, bounds);
    parts.push(
      `<g class="point"><title>${escapeHtml(title)}</title>` +
        `<line class="mark" x1="${x}" x2="${x}" y1="${point.bottom}" y2="${point.top}" stroke="${color}" stroke-width="2"/>` +
        `<line class="mark" x1="${x - 5}" x2="${x + 5}" y1="${point.bottom}" y2="${point.bottom}" stroke="${color}" stroke-width="2"/>` +
        `<line class="mark" x1="${x - 5}" x2="${x + 5}" y1="${point.top}" y2="${point.top}" stroke="${color}" stroke-width="2"/>` +
        `<circle class="mark" cx="${x}" cy="${point.y}" r="6" fill="${color}" stroke="#fff" stroke-width="1.5"/>` +
        `<text class="name" x="${spot.x}" y="${spot.y}" text-anchor="${spot.anchor}" fill="${color}">${escapeHtml(tool.label)}</text></g>`,
    );
  });
  return `<svg class="chart" id="cost-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Cost per task against resolve rate">${parts.join("")}</svg>`;
}

/** pass@k (solid) and pass^k (dashed) against k, one color per tool. */
export function renderPassChart(tools: readonly ToolReport[]): string {
  const maxK = Math.max(1, ...tools.map((tool) => tool.passAtK.length));
  const left = 56;
  const plotWidth = WIDTH - left - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (k: number): number =>
    left + (maxK === 1 ? plotWidth / 2 : (plotWidth * (k - 1)) / (maxK - 1));
  const y = (rate: number): number => TOP + plotHeight * (1 - rate);
  const parts: string[] = [yAxis(left, plotWidth)];
  const step = Math.max(1, Math.ceil(maxK / 12));
  for (let k = 1; k <= maxK; k += step) {
    parts.push(
      `<text class="tick" x="${x(k)}" y="${TOP + plotHeight + 18}" text-anchor="middle">${k}</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${left}" x2="${left + plotWidth}" y1="${TOP + plotHeight}" y2="${TOP + plotHeight}"/>`,
    `<text class="label" x="${left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">k (trials)</text>`,
  );
  tools.forEach((tool, index) => {
    if (tool.passAtK.length < 2) return;
    const color = toolColor(index);
    for (const metric of ["passAtK", "passHatK"] as const) {
      const line = tool.passAtK.map((point) => `${x(point.k)},${y(point[metric])}`).join(" ");
      parts.push(
        `<polyline class="mark" points="${line}" fill="none" stroke="${color}" stroke-width="2"${metric === "passHatK" ? ' stroke-dasharray="6 4"' : ""}><title>${escapeHtml(`${tool.label} ${metric === "passAtK" ? "pass@k" : "pass^k"}`)}</title></polyline>`,
      );
    }
  });
  return `<svg class="chart" id="pass-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="pass@k and pass^k against k">${parts.join("")}</svg>`;
}
