/** The last bytes of a stream, kept in bounded memory. */
export interface OutputTail {
  /** Adds a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer): void;
  /** The kept bytes as UTF-8, starting at a whole character. */
  text(): string;
}

/** A tail that keeps at most `limitBytes` bytes. */
export function createOutputTail(limitBytes: number): OutputTail {
  let chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk) {
      if (limitBytes === 0 || chunk.length === 0) return;
      if (chunk.length >= limitBytes) {
        chunks = [chunk.subarray(chunk.length - limitBytes)];
        size = limitBytes;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      // Drop whole chunks only while the rest still fills the limit; text() trims the remainder.
      for (let first = chunks[0]; first !== undefined && size - first.length >= limitBytes;) {
        chunks.shift();
        size -= first.length;
        first = chunks[0];
      }
    },
    text() {
      const all = Buffer.concat(chunks);
      let start = Math.max(0, all.length - limitBytes);
      // A cut can land inside a multi-byte character: skip its continuation bytes (10xxxxxx).
      for (let skipped = 0; skipped < 3 && start < all.length; skipped++) {
        const byte = all[start];
        if (byte === undefined || (byte & 0xc0) !== 0x80) break;
        start++;
      }
      return all.subarray(start).toString("utf8");
    },
  };
}
