/** Configuration: the otto.jsonc files, their schema, merging, env overrides and editing. */
export { ConfigFile, type Config, type Repo } from "./schema.ts";
export { parseDuration, tryParseDuration } from "./duration.ts";
export { loadConfig, validateConfig, untrustedNote, type LoadOptions, type LoadedConfig, type ValidationReport } from "./load.ts";
export { resolveConfig, type ResolvedConfig } from "./resolve.ts";
export { parseConfigText, type ParseOptions, type ParsedFile } from "./parse.ts";
export { deepMerge } from "./merge.ts";
export { ENV_OVERRIDES, envLayer } from "./env.ts";
export { computeSources, type ConfigLayer, type ConfigSources } from "./sources.ts";
export { locateConfigFiles, findRepoRoot, userConfigFile, repoConfigFile, type ConfigFiles } from "./files.ts";
export { setConfigValue, editConfigFile, planSet, planEdit, type SetPlan, type SetResult } from "./set.ts";
export { configError, formatProblem, formatConfigProblems, type ConfigProblem } from "./problems.ts";
export { SECRET_KEYS, isSecretKey, maskSecrets, secretKeysSet } from "./secrets.ts";
export {
  assertNoCommittedSecrets,
  repoFileSecrets,
  findRepoFileSecrets,
  describeRepoFileSecrets,
  type RepoFileSecret,
  type GitCheck,
} from "./committed.ts";
export {
  TRUST_GATED_KEYS,
  gatedDigest,
  gatedValues,
  isRepoTrusted,
  listTrustedRepos,
  trustFile,
  trustRepo,
  untrustRepo,
  type TrustedRepo,
} from "./trust.ts";
export { parseKeyPath, formatKeyPath } from "./keypath.ts";
export { allKeyPaths } from "./introspect.ts";
export { modelRoles, type ModelRoles } from "./models.ts";
export { renderConfigJsonc, renderConfigJson, renderUnsetRoles } from "./show.ts";
export { buildJsonSchema, renderJsonSchema } from "./json-schema.ts";
