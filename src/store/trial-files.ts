import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import type { TrialPaths } from "./runs.js";

/** A text file of a trial, maybe cut to a size limit. */
export interface CappedText {
  readonly text: string;
  /** The file's whole size in bytes. */
  readonly bytes: number;
  /** Only part of the file is in `text`. */
  readonly isCut: boolean;
}

/**
 * Reads at most maxBytes of a file, from its start ("head", for patches) or its end ("tail",
 * for logs, whose last lines say how things ended); null when the file is missing. A cut can
 * split a multi-byte character, which then decodes as U+FFFD.
 */
export function readCappedText(
  file: string,
  maxBytes: number,
  keep: "head" | "tail",
): CappedText | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const bytes = fstatSync(fd).size;
    const length = Math.min(bytes, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    const start = keep === "head" ? 0 : bytes - length;
    while (read < length) {
      const got = readSync(fd, buffer, read, length - read, start + read);
      if (got === 0) break;
      read += got;
    }
    return { text: buffer.subarray(0, read).toString("utf8"), bytes, isCut: length < bytes };
  } finally {
    closeSync(fd);
  }
}

/** The transcripts a tool kept: files in artifacts/ named transcript*, sorted. */
export function listTranscripts(paths: TrialPaths): string[] {
  try {
    return readdirSync(paths.artifactsDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.startsWith("transcript"))
      .map((entry) => path.join(paths.artifactsDir, entry.name))
      .sort();
  } catch {
    return [];
  }
}
