// The repo subsystem's public entry: the git runner, repository identity, tracked repos,
// worktrees by strategy, and PR-to-worktree mapping. Other folders import from here only.
export { runGit, defaultTimeout, describeCommand, gitEnvironment, GIT_TIMEOUTS, type GitResult, type GitOptions, type GitEnv } from "./git.ts";
export { gitOutput, gitFailure, detachedHeadError } from "./git-errors.ts";
export { normalizeRemoteUrl, sameRepository, repositoryName } from "./remote-url.ts";
export { parseStatus, parseWorktreeList, type WorkingStatus, type GitWorktree } from "./status.ts";
export {
  repoRoot,
  listRemotes,
  remoteUrl,
  normalizedRemoteUrl,
  readStatus,
  currentBranch,
  headSha,
  isDirty,
  aheadBehind,
  listGitWorktrees,
  unpushedCommits,
  branchExists,
  refExists,
  type Remote,
} from "./identity.ts";
export { renderBranchName, parseBranchName, templatePattern, worktreeNameFor, assertWorktreeName } from "./branch-template.ts";
export { globPattern, managedBranchMatcher, parseBranchRefs, listBranchRefs, type BranchRef } from "./branch-refs.ts";
export { addRepoEntry, removeRepoEntry, type RepoEntry, type RepoEdit } from "./repos-config.ts";
export { proposeRepo, type RepoProposal } from "./propose-repo.ts";
export { findRepo, worktreeDirOf, realPath, isInside, remoteKeys } from "./find-repo.ts";
export { addWorktree, type WorktreeAdded } from "./worktree-add.ts";
export { listWorktrees, type WorktreeListing, type WorktreeEntry, type ActiveSpec, type SpecsIn, type ListOptions } from "./worktree-list.ts";
export { removeWorktree, type RemoveOptions, type WorktreeRemoved } from "./worktree-remove.ts";
export { readTrackedPrs, prDocumentsDir, prBelongsTo, repoUrlOfPr, type TrackedPr } from "./tracked-prs.ts";
export { mapPrToWorkdir, type MapPrInput, type PrWorkdir } from "./map-pr.ts";
export { excludeFromGit } from "./exclude.ts";
