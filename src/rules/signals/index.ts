/** Signals for rules learning: events on a repository's PRs that may teach otto a team rule (docs/rules-learning.md). */
export { collectSignals, MAX_LEARN_PRS, type CollectInput, type Collected } from "./collect.ts";
export { extractSignals, PR_AUTHOR, type PrActivity } from "./extract.ts";
export { rememberedRules } from "./remember.ts";
export { SignalKind, MAX_SIGNAL_TEXT, type Signal } from "./signal.ts";
