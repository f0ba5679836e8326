import type { PrInfo } from "../../../src/pr/index.ts";

/** An open GitHub PR (octo/app#42, feature/auth → main) for unit tests; `over` changes any field. */
export const samplePr = (over: Partial<PrInfo> = {}): PrInfo => ({
  provider: "github",
  number: 42,
  repo: "octo/app",
  url: "https://github.com/octo/app/pull/42",
  title: "Add auth",
  state: "open",
  draft: false,
  sourceBranch: "feature/auth",
  targetBranch: "main",
  headSha: "0123456789abcdef0123456789abcdef01234567",
  author: "dev",
  createdAt: "2026-02-06T10:00:00Z",
  meta: {},
  ...over,
});
