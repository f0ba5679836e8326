import { z } from "zod";
import { DURATION_PATTERN, tryParseDuration } from "./duration.ts";

/*
 * Field types shared by the config sections. Each custom `message` is phrased as what was
 * expected ("a duration like ..."), because the problem renderer prints it after "expected".
 */

/** OpenCode's `provider/model` form; model ids may contain more slashes (openrouter/anthropic/claude). */
export const MODEL_PATTERN = /^[A-Za-z0-9][\w.-]*\/\S+$/;

export const ModelRef = z.string().regex(MODEL_PATTERN, {
  message: "a model in provider/model form, e.g. github-copilot/claude-opus-4.6",
});

export const Duration = z
  .string()
  .regex(DURATION_PATTERN, { message: "a duration like 30s, 2m or 1h30m (units: ms, s, m, h, d)", abort: true })
  .refine((text) => (tryParseDuration(text) ?? 0) > 0, { message: "a duration longer than zero" });

export const HttpUrl = z.url({ protocol: /^https?$/, message: "an http:// or https:// URL" });

export const HttpsUrl = z.url({ protocol: /^https$/, message: "an https:// URL" });

export const NonEmpty = z.string().min(1, { message: "a non-empty string" });

export const Count = (min: number) => z.number().int({ message: "a whole number" }).min(min);

/** Shell commands run in the working directory, each must exit 0 (e.g. "npm test"). */
export const Commands = z.array(NonEmpty);
