import { OttoError, type Runtime } from "../../core/index.ts";

export interface ReviewLoopInput {
  runtime: Runtime;
  /** Where the command runs (the tool's directory). */
  directory: string;
  /** The PR: a URL or a number. */
  target: string;
  provider?: string;
  /** The invoking session, so child sessions show under it. */
  sessionID?: string;
  signal?: AbortSignal;
  progress(message: string): void;
}

/** /pr-review --loop: the multi-model review-and-fix loop (docs/pr-review-loop.md). */
export async function runReviewLoop(input: ReviewLoopInput): Promise<string> {
  throw new OttoError("not_implemented", `The review loop is not built yet (${input.target}).`, "Run /pr-review without --loop.");
}
