/**
 * What model calls used: OpenCode records `tokens` and `cost` on every assistant message, the cost
 * priced from the model's configured price. A model without a price reports cost 0, which is not
 * free: its calls are counted in `unpriced`, and a sum with unpriced calls shows its cost as
 * unknown (or as a lower bound), never as $0.
 */
export interface Usage {
  /** Model calls (assistant messages). */
  requests: number;
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars of the priced calls. */
  usd: number;
  /** Calls of models without a price: their cost is unknown. */
  unpriced: number;
}

export const ZERO_USAGE: Usage = Object.freeze({
  requests: 0,
  input: 0,
  output: 0,
  reasoning: 0,
  cacheRead: 0,
  cacheWrite: 0,
  usd: 0,
  unpriced: 0,
});

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    requests: a.requests + b.requests,
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    // Rounded to a micro-dollar: sums of floats must not drift away from the prices' own figures.
    usd: Math.round((a.usd + b.usd) * 1e6) / 1e6,
    unpriced: a.unpriced + b.unpriced,
  };
}

/** a − b, field by field (a message's usage grows while it streams: only the growth is charged). */
export function subtractUsage(a: Usage, b: Usage): Usage {
  return {
    requests: a.requests - b.requests,
    input: a.input - b.input,
    output: a.output - b.output,
    reasoning: a.reasoning - b.reasoning,
    cacheRead: a.cacheRead - b.cacheRead,
    cacheWrite: a.cacheWrite - b.cacheWrite,
    usd: Math.round((a.usd - b.usd) * 1e6) / 1e6,
    unpriced: a.unpriced - b.unpriced,
  };
}

export function sumUsage(list: Iterable<Usage>): Usage {
  let out = ZERO_USAGE;
  for (const usage of list) out = addUsage(out, usage);
  return out;
}

/** Every token a call was billed for: input, output, reasoning, cache read and cache write. */
export function totalTokens(usage: Usage): number {
  return usage.input + usage.output + usage.reasoning + usage.cacheRead + usage.cacheWrite;
}

/** The dollars, or undefined when every call was unpriced (unknown, not $0). */
export function knownUsd(usage: Usage): number | undefined {
  return usage.requests > 0 && usage.unpriced === usage.requests ? undefined : usage.usd;
}

/** One assistant message's usage, as OpenCode records it. */
export function messageUsage(
  info: { cost?: number; tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } } },
  priced: boolean,
): Usage {
  const t = info.tokens ?? {};
  return {
    requests: 1,
    input: t.input ?? 0,
    output: t.output ?? 0,
    reasoning: t.reasoning ?? 0,
    cacheRead: t.cache?.read ?? 0,
    cacheWrite: t.cache?.write ?? 0,
    usd: priced ? (info.cost ?? 0) : 0,
    unpriced: priced ? 0 : 1,
  };
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** The cost part: "$0.42", "cost unknown" (no price), "≥ $0.42" (some calls unpriced). */
export function formatCost(usage: Usage): string {
  if (usage.requests === 0) return "$0.00";
  if (usage.unpriced === usage.requests) return "cost unknown";
  return usage.unpriced > 0 ? `≥ ${formatUsd(usage.usd)}` : formatUsd(usage.usd);
}

/**
 * " (8.1k cache read, 2.0k cache write)" when a provider's prompt cache served or stored part of
 * the input, else "": OpenCode's own message tokens, never an estimate.
 */
function cacheNote(usage: Usage): string {
  const parts = [
    ...(usage.cacheRead > 0 ? [`${formatTokens(usage.cacheRead)} cache read`] : []),
    ...(usage.cacheWrite > 0 ? [`${formatTokens(usage.cacheWrite)} cache write`] : []),
  ];
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** "12.3k", or "12.3k (8.1k cache read, 2.0k cache write)" when a provider's prompt cache was used. */
export function formatTokenCount(usage: Usage): string {
  return `${formatTokens(totalTokens(usage))}${cacheNote(usage)}`;
}

/** "12.3k tokens, $0.42" (with the cache reads and writes when there were any): the line every summary and status shows. */
export function formatUsage(usage: Usage): string {
  return `${formatTokens(totalTokens(usage))} tokens${cacheNote(usage)}, ${formatCost(usage)}`;
}
