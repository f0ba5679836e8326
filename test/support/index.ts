export * from "./model-script.ts";
export * from "./model-server.ts";
export * from "./opencode.ts";
export * from "./serve.ts";
export * from "./git.ts";
export { REPO_ROOT, OPENCODE_BIN, opencodeVersion, ensureConfigTemplate, isolatedEnv, type IsolatedDirs } from "./opencode-env.ts";
export { survivors, liveHandles, type ProcessHandle } from "./processes.ts";
export { useE2E, type E2E, type UseE2EOptions } from "./e2e.ts";
export {
  startFakeGithub,
  FAKE_GITHUB_TOKEN,
  GithubState,
  type FakeGithub,
  type FakeGithubOptions,
  type FakePr,
} from "./fake-github/index.ts";
export {
  startFakeAdo,
  FAKE_ADO_PAT,
  AdoState,
  BUILD_SERVICE_DEFAULTS,
  type AdoGrants,
  type AdoPermission,
  type FakeAdo,
  type FakeAdoOptions,
  type FakeAdoPr,
} from "./fake-ado/index.ts";
export { startFakeHttp, type FakeHttp, type FaultPlan, type FaultKind, type RecordedCall } from "./fake-http.ts";
export * from "./figures.ts";
export * from "./wait.ts";
export { DEVELOPER, DEV_SECRETS, GLOBAL_IGNORES, developerHome, testRoot, writeDeveloperHome } from "./dev-home.ts";
export { pathWithout } from "./path-without.ts";
