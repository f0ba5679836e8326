export * from "./model-script.ts";
export * from "./model-server.ts";
export * from "./opencode.ts";
export * from "./serve.ts";
export * from "./git.ts";
export { REPO_ROOT, OPENCODE_BIN, opencodeVersion, ensureConfigTemplate, isolatedEnv, type IsolatedDirs } from "./opencode-env.ts";
export { survivors, liveHandles, type ProcessHandle } from "./processes.ts";
export { useE2E, type E2E } from "./e2e.ts";
