import type { PrInfo } from "../../../../src/pr/index.ts";
import { samplePr } from "../sample-pr.ts";

/** The PR of the fix-flow unit tests: o/r#7 on feature/x (document key github-o-r-7). */
export const fixPr = (over: Partial<PrInfo> = {}): PrInfo =>
  samplePr({
    number: 7,
    repo: "o/r",
    url: "https://github.com/o/r/pull/7",
    title: "T",
    sourceBranch: "feature/x",
    headSha: "abcdef1234567890",
    author: "a",
    createdAt: "",
    ...over,
  });
