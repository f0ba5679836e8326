/** Rules learning: /otto-rules learn and the watcher's daily run (docs/rules-learning.md). */
export { learnCommand, learnDaily, DAILY_MS, type LearnCommandInput } from "./entry.ts";
export { runLearn, type LearnDeps, type LearnInput, type LearnReport } from "./run-learn.ts";
export { learnStateFile, readLearnState, recordLearnRun, LearnState } from "./consumed.ts";
export { candidatesOf, kept, toProposal, rememberedProposal, Grouping, Verdicts, type Candidate } from "./proposal.ts";
