/**
 * Placing chart labels where they cover nothing: the page is drawn on the server, with no
 * browser to measure text, so a label's box is estimated from its length and kept clear of
 * every mark and every label placed before it. The browser test measures the real boxes.
 */

/** A rectangle in SVG coordinates. */
export interface Box {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

/** Where a label may go: its text anchor point and alignment. */
export interface LabelSpot {
  readonly x: number;
  /** The baseline. */
  readonly y: number;
  readonly anchor: "start" | "middle" | "end";
}

/** Bold 12 px sans-serif averages under 0.62 em a character; the rest is margin. */
const CHAR_EM = 0.68;
const PAD = 3;

/** The box a label will take, estimated generously from its length and font size. */
export function labelBox(spot: LabelSpot, text: string, fontSize = 12): Box {
  const width = Array.from(text).length * fontSize * CHAR_EM;
  const x1 =
    spot.anchor === "start" ? spot.x : spot.anchor === "end" ? spot.x - width : spot.x - width / 2;
  return {
    x1: x1 - PAD,
    y1: spot.y - fontSize - PAD,
    x2: x1 + width + PAD,
    y2: spot.y + fontSize * 0.3 + PAD,
  };
}

/** Area two boxes share (0 when apart). */
export function overlap(a: Box, b: Box): number {
  const width = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const height = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  return width > 0 && height > 0 ? width * height : 0;
}

function outside(box: Box, bounds: Box): number {
  return (
    Math.max(0, bounds.x1 - box.x1) +
    Math.max(0, box.x2 - bounds.x2) +
    Math.max(0, bounds.y1 - box.y1) +
    Math.max(0, box.y2 - bounds.y2)
  );
}

/**
 * The first spot whose label covers no obstacle and stays inside bounds; when every spot
 * covers something, the one that covers least. The chosen label's box joins the obstacles, so
 * later labels keep clear of it.
 */
export function placeLabel(
  spots: readonly LabelSpot[],
  text: string,
  obstacles: Box[],
  bounds: Box,
  fontSize = 12,
): LabelSpot {
  let best: { spot: LabelSpot; cost: number } | null = null;
  for (const spot of spots) {
    const box = labelBox(spot, text, fontSize);
    const cost =
      obstacles.reduce((sum, obstacle) => sum + overlap(box, obstacle), 0) +
      outside(box, bounds) * 1000;
    if (best === null || cost < best.cost) best = { spot, cost };
    if (cost === 0) break;
  }
  const chosen = best?.spot ?? spots[0] ?? { x: bounds.x1, y: bounds.y1, anchor: "start" as const };
  obstacles.push(labelBox(chosen, text, fontSize));
  return chosen;
}
