import { randomUUID } from "node:crypto";
import { OttoError, isOttoError } from "../core/index.ts";

/*
 * The one way otto writes content on a forge (comments, replies, reviews, threads): never retried
 * blindly. A write that times out, loses its connection or gets a 5xx may have been applied, and
 * sending it again would post it twice. So every post carries a hidden marker with an id of its
 * own; after such a failure otto looks for that marker on the forge, and only when it is not there
 * writes again, once. Rejections the forge answered (4xx, rate limits) say nothing was written and
 * are left to the HTTP clients' own rules.
 */

const POST_MARKER = /\n*<!-- otto:post id=[0-9a-f-]+ -->/g;

/** The hidden marker of one post. */
export function postMarker(id: string): string {
  return `<!-- otto:post id=${id} -->`;
}

/** `body` carrying `marker` at its end (hidden in rendered markdown). */
export function withPostMarker(body: string, marker: string): string {
  return `${body.trimEnd()}\n\n${marker}`;
}

/** A body without post markers, for showing a thread to a model or a person. */
export function stripPostMarkers(body: string): string {
  return body.replace(POST_MARKER, "");
}

/** The code of the error a write throws when its outcome is unknown (timeout, network, 5xx). */
export const UNCERTAIN_WRITE = "pr_write_uncertain";

export function uncertainWrite(what: string, detail: string, cause?: unknown): OttoError {
  return new OttoError(
    UNCERTAIN_WRITE,
    `${what}: ${detail}; the forge may or may not have applied it.`,
    "otto checks for its post before it writes again; the next poll tries again.",
    { cause },
  );
}

export const isUncertainWrite = (error: unknown): boolean => isOttoError(error) && error.code === UNCERTAIN_WRITE;

export interface PostOnceOptions {
  /** Sends the post once, with `marker` in its body; throws `uncertainWrite` when the outcome is unknown. */
  write(marker: string): Promise<void>;
  /** Whether the forge shows a post carrying `marker` (reads may be retried: they change nothing). */
  find(marker: string): Promise<boolean>;
  /** Lets the forge's lists catch up with a write before looking (GitHub's are eventually consistent). */
  sleep(ms: number): Promise<void>;
  settleMs: number;
  /** For tests; a fresh random id otherwise. */
  id?: string;
  log?(message: string): void;
}

export type PostResult = "posted" | "found";

/**
 * Posts once: write; on an uncertain failure look for the marker, then write again only if it is
 * absent; after a second uncertain failure look once more. A failed look means otto cannot tell,
 * so it does not write again and the first error stands.
 */
export async function postOnce(options: PostOnceOptions): Promise<PostResult> {
  const marker = postMarker(options.id ?? randomUUID());
  const lookAfter = async (error: unknown): Promise<boolean> => {
    if (!isUncertainWrite(error)) throw error;
    await options.sleep(options.settleMs);
    const found = await options.find(marker).catch(() => {
      throw error;
    });
    if (found)
      options.log?.(`a write that failed (${error instanceof Error ? error.message : String(error)}) had been applied; not posting again`);
    return found;
  };
  try {
    await options.write(marker);
    return "posted";
  } catch (first) {
    if (await lookAfter(first)) return "found";
  }
  try {
    await options.write(marker);
    return "posted";
  } catch (second) {
    if (await lookAfter(second)) return "found";
    throw second;
  }
}
