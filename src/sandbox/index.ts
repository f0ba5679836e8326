// The sandbox subsystem's public entry: where the code of otto's work runs. A session's shell
// command, a check otto runs on a tree a session touched, a hook of otto's own commit: each runs
// with its tree writable, git's control files read-only, an empty home with the toolchains and
// package stores brought back (home.ts; each store in a layer of the run's own, store-layer.ts),
// the session's sockets, the user's credential stores and secret files out of sight (bubblewrap
// on Linux, sandbox-exec on macOS), with an allow-listed environment (sandbox-env.ts) in which no
// push reaches a remote and no forge token is set (push-env.ts; a guarded session's shell gets the
// same one).
// Depends only on core. See docs/security.md.
export { detectSandbox, onPath, type Detected, type DetectHost, type SandboxKind } from "./detect.ts";
export { usernsRefusals, type Refusal } from "./userns.ts";
export {
  sandboxPolicy,
  within,
  DEFAULT_ACCESS,
  HOOK_MANAGER_CONFIG,
  type SandboxAccess,
  type SandboxPolicy,
  type TreePaths,
} from "./policy.ts";
export { credentialPaths } from "./credential-paths.ts";
export { treeConfigFiles, missingConfigIncludes } from "./in-tree-controls.ts";
export { toolchainPaths, storePaths, runtimePaths, realPath } from "./home.ts";
export { findSecretFiles, forgetSecretFiles, isSecretName } from "./secret-files.ts";
export { indexStamp, readIndexPaths, readIndexGitlinks } from "./git-index.ts";
export { sandboxEnvNames, envFilterScript } from "./sandbox-env.ts";
export { userGitSettings, gitSettingsFile, type UserGitSettings } from "./git-settings.ts";
export { bwrapArgs, pathKind, type PathKind } from "./bwrap.ts";
export { seatbeltProfile } from "./seatbelt.ts";
export {
  planCommand,
  sandboxedLine,
  sandboxRequired,
  sandboxUnattended,
  describeSandbox,
  assertSandbox,
  unsandboxedNote,
  shellQuote,
  sandboxShell,
  type CommandPlan,
  type SandboxMode,
  type SandboxRequest,
} from "./wrap.ts";
export {
  pushBlockingEnv,
  guardedEnvironment,
  protectedVariables,
  BLOCKED_PUSH_URL,
  TOKEN_VARIABLES,
  SERVER_AUTH_VARIABLES,
  type PushEnvInput,
} from "./push-env.ts";
export { typedLine } from "./typed-line.ts";
