/*
 * Reading a forge's answer with a bound, as it streams: a CI log or a comment list is written by
 * whoever can push or comment, and reading it whole before cutting it lets one PR fill otto's
 * memory. CI logs keep their end (runners print the failing step and its exit code last): the
 * body is read through, keeping a ring of the last bytes. Anything else keeps its start and stops
 * reading at the cap.
 */

export interface Capped {
  text: string;
  /** Bytes of the body that were read. */
  bytes: number;
  /** True when the text is not the whole body. */
  truncated: boolean;
  /** The most bytes held at once while reading: the memory the read cost. */
  peakBytes: number;
}

export interface CapOptions {
  maxBytes: number;
  /** "tail": read the whole body, keep its last maxBytes. "head" (default): keep the first maxBytes and stop reading. */
  keep?: "head" | "tail";
  /** "tail" only: stop reading after this many bytes in all (a body without end). Default 256 MB. */
  maxReadBytes?: number;
}

const DEFAULT_MAX_READ = 256 * 1024 * 1024;

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The body of a response (or any byte stream) read up to the cap; the stream is cancelled when reading stops early. */
export async function readCapped(body: ReadableStream<Uint8Array> | null | undefined, options: CapOptions): Promise<Capped> {
  if (!body) return { text: "", bytes: 0, truncated: false, peakBytes: 0 };
  const keep = options.keep ?? "head";
  const maxRead = keep === "tail" ? (options.maxReadBytes ?? DEFAULT_MAX_READ) : options.maxBytes;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let held = 0;
  let bytes = 0;
  let peak = 0;
  let stopped = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      chunks.push(value);
      held += value.length;
      // The ring: drop whole chunks from the front while the rest still holds maxBytes.
      if (keep === "tail") {
        while (chunks.length > 1 && held - (chunks[0]?.length ?? 0) >= options.maxBytes) held -= chunks.shift()?.length ?? 0;
      }
      peak = Math.max(peak, held);
      if (bytes > maxRead) {
        stopped = true;
        break;
      }
    }
  } finally {
    // No releaseLock: the stream is never read again, and Bun's (1.3) throws "undefined is not
    // a function" on a fetch body it had buffered whole, which lost the log it had just read.
    if (stopped) await reader.cancel().catch(() => undefined);
  }
  const all = concat(chunks, held);
  const cut = all.length > options.maxBytes;
  const kept = !cut ? all : keep === "tail" ? all.subarray(all.length - options.maxBytes) : all.subarray(0, options.maxBytes);
  let text = new TextDecoder().decode(kept);
  // A cut can fall inside a character or a line: start the tail at its first whole line.
  if (cut && keep === "tail") {
    const newline = text.indexOf("\n");
    if (newline >= 0 && newline < 1024) text = text.slice(newline + 1);
  }
  return { text, bytes, truncated: cut || stopped, peakBytes: peak };
}

/** The line put before a log whose start was not kept. */
export function cutNote(maxBytes: number): string {
  return `[otto: the log was longer than ${Math.round(maxBytes / 1000)} KB; only its end is kept]`;
}
