// The workspace subsystem's public entry: everything that touches a working tree, below the
// features. The git runner and its errors, questions about a checkout, the project's checks,
// commits, otto's one push path, the unpushed-commit guard, the cross-process work lock and the
// detector of changes that weaken a project's checks.
// Execute, build, the PR flows and the review loop all go through here; other folders import
// from this file only.
export {
  runGit,
  defaultTimeout,
  describeCommand,
  gitEnvironment,
  GIT_TIMEOUTS,
  type GitResult,
  type GitOptions,
  type GitEnv,
} from "./git.ts";
export { gitOutput, gitFailure, detachedHeadError } from "./git-errors.ts";
export { fetchBranch, type FetchBranchOptions } from "./fetch-branch.ts";
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
export { assertCommitIdentity } from "./commit-identity.ts";
export { runChecks, runCheck, describeChecks, type CheckResult, type VerifyOptions } from "./checks.ts";
export {
  commitAll,
  commitChanges,
  ignoredLine,
  unsignedLine,
  pendingDiff,
  gitDir,
  takeIncluded,
  type CommitOptions,
  type CommitResult,
} from "./commit.ts";
export { findKnownSecrets, MAX_SCAN_BYTES, MIN_SCANNED_SECRET } from "./secret-scan.ts";
export {
  snapshotTree,
  changesSince,
  diffSnapshots,
  ignoredAt,
  fingerprint,
  parsePorcelainZ,
  TreeSnapshot,
  CLEAN_TREE,
  type TreeChanges,
  type GitRun,
} from "./snapshot.ts";
export {
  compareToBaseline,
  describeBaseline,
  failureCount,
  isBlocking,
  type CheckComparison,
  type CheckVerdict,
} from "./check-baseline.ts";
export { describeVerdict, failingHeadline, judgeRun, type RunVerdict } from "./run-verdict.ts";
export { commitAndPush, pushBranch, type PushBranchInput, type PushInput, type PushOutcome, type PushResult } from "./push.ts";
export { snapshotGitControl, gitControlChanges, describeControlChanges, type GitControlSnapshot } from "./git-guard.ts";
export { commitsAhead, refuseUnpushed } from "./unpushed.ts";
export {
  detectWeakenedChecks,
  splitByCause,
  describeWeakenings,
  normalisePath,
  mentionedPaths,
  isTestFile,
  parseDiffLines,
  type ChangeSet,
  type ChangedFile,
  type ChangeStatus,
  type Weakening,
  type WeakeningKind,
} from "./detect-weakened-checks.ts";
export { readChangeSet, describeChangeSet, parseNameStatus, TEXT_DIFF, type ReadChangeSetInput } from "./change-set.ts";
export { screenChanges, describeAllowed, weakenedNote, type ScreenInput, type Screened } from "./screen-changes.ts";
export {
  judgeRestoredChecks,
  namedLine,
  restoredNote,
  touchedCheckFiles,
  type RestoredChecks,
  type RestoredChecksInput,
} from "./restored-checks.ts";
export { isCheckFile, isCheckConfiguration, scriptPaths } from "./check-files.ts";
export { defaultBranch } from "./default-branch.ts";
export {
  withWorkLock,
  workLockHolder,
  workLockPaths,
  describeHolder,
  workTreeBusy,
  WORK_LOCK_STALE_MS,
  WorkLockHolder,
  type WorkLockResult,
  type WorkLockOptions,
} from "./work-lock.ts";
export { addTemporaryWorktree, type TemporaryWorktree, type TemporaryWorktreeInput } from "./temp-worktree.ts";
export { restoreChanges } from "./restore.ts";
export {
  openCodeConfigRoot,
  isOpenCodeConfig,
  openCodeConfigFiles,
  changedOpenCodeConfig,
  openCodeConfigDiff,
  removeOpenCodeConfig,
  type RemovedConfig,
} from "./opencode-config.ts";
export { quarantineLine, isOpencodeCode, type Quarantined } from "./quarantine.ts";
export { watchControls, settleControls, settledLine, type ControlWatch, type Settled } from "./control-watch.ts";
