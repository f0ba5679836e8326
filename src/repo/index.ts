// The repo subsystem's public entry: tracked repos, worktrees by strategy, branch names and
// PR-to-worktree mapping (git itself is src/workspace). Other folders import from here only.
export { renderBranchName, parseBranchName, templatePattern, worktreeNameFor, assertWorktreeName } from "./branch-template.ts";
export { globPattern, managedBranchMatcher, parseBranchRefs, listBranchRefs, type BranchRef } from "./branch-refs.ts";
export { addRepoEntry, removeRepoEntry, type RepoEntry, type RepoEdit } from "./repos-config.ts";
export { proposeRepo, type RepoProposal } from "./propose-repo.ts";
export { findRepo, worktreeDirOf, realPath, isInside, remoteKeys } from "./find-repo.ts";
export { addWorktree, type WorktreeAdded } from "./worktree-add.ts";
export {
  listWorktrees,
  type WorktreeListing,
  type WorktreeEntry,
  type ActiveSpec,
  type SpecsIn,
  type ListOptions,
} from "./worktree-list.ts";
export { removeWorktree, type RemoveOptions, type WorktreeRemoved } from "./worktree-remove.ts";
export { readTrackedPrs, prDocumentsDir, prBelongsTo, repoUrlOfPr, type TrackedPr } from "./tracked-prs.ts";
export { mapPrToWorkdir, type MapPrInput, type PrWorkdir } from "./map-pr.ts";
export { excludeFromGit } from "./exclude.ts";
export { placeRun, runBranchName, type RunBranch, type RunBranchInput } from "./run-branch.ts";
