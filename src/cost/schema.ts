import { z } from "zod";
import type { Usage } from "./usage.ts";

/** Usage as records store it (tasks.md run records, histories, PR documents, crew and build state, the ledger). */
export const UsageRecord = z.object({
  requests: z.number().int().nonnegative().default(0),
  input: z.number().nonnegative().default(0),
  output: z.number().nonnegative().default(0),
  reasoning: z.number().nonnegative().default(0),
  cacheRead: z.number().nonnegative().default(0),
  cacheWrite: z.number().nonnegative().default(0),
  usd: z.number().nonnegative().default(0),
  unpriced: z.number().int().nonnegative().default(0),
}) satisfies z.ZodType<Usage, unknown>;
