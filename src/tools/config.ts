import type { ToolDefinition } from "@opencode-ai/plugin";
import { maskSecret, isOttoError, OttoError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { resolveChecks } from "../analysis/index.ts";
import {
  ENV_OVERRIDES,
  findRepoRoot,
  formatConfigProblems,
  isSecretKey,
  loadConfig,
  locateConfigFiles,
  parseKeyPath,
  renderConfigJson,
  renderConfigJsonc,
  renderUnsetRoles,
  setConfigValue,
  untrustedNote,
  validateConfig,
  type SetResult,
} from "../config/index.ts";
import { describeSandbox } from "../sandbox/index.ts";
import { trustVerb } from "./config-trust.ts";
import { defineCommand, type Verb } from "./command.ts";
import { modelsVerb } from "./config-models.ts";

function showValue(key: string, value: unknown): string {
  if (value === undefined) return "(unset)";
  if (isSecretKey(parseKeyPath(key))) return maskSecret(typeof value === "string" ? value : JSON.stringify(value));
  return JSON.stringify(value);
}

const show: Verb = {
  path: ["show"],
  args: "[--json]",
  summary: "Show the merged config with the source of every key (secrets masked)",
  options: { json: { type: "boolean" } },
  async run({ values }, { runtime }) {
    const loaded = await loadConfig({ directory: runtime.directory, env: runtime.env, runtime });
    const note = loaded.untrusted?.length && loaded.files.repo ? `\n\nNote: ${untrustedNote(loaded.files.repo, loaded.untrusted)}` : "";
    // Detected where the command runs (a PR's fix detects again in the PR's own tree).
    const root = (await findRepoRoot(runtime.directory)) ?? runtime.directory;
    const checks = [
      await resolveChecks("spec.verify", loaded.config.spec.verify, root),
      await resolveChecks("pr.verify", loaded.config.pr.verify, root),
    ];
    const sandbox = describeSandbox(loaded.config.sandbox, runtime.env);
    if (values.json === true) return renderConfigJson(loaded, checks, { mode: sandbox.mode, active: sandbox.active });
    return [renderConfigJsonc(loaded, checks), ...renderUnsetRoles(loaded.config), "", `${sandbox.line}${note}`].join("\n");
  },
};

/** Notes on what still wins over the file just written: an env variable, or the repo file. */
async function overrideNotes(runtime: Runtime, result: SetResult): Promise<string[]> {
  const env = ENV_OVERRIDES.find((o) => o.key === result.key && runtime.env[o.name]);
  if (env) return [`Note: ${env.name} is set in the environment and wins over this file.`];
  try {
    const loaded = await loadConfig({ directory: runtime.directory, env: runtime.env, runtime });
    const source = loaded.sources[result.key];
    if (source?.startsWith("repo (") && result.file !== loaded.files.repo) {
      return [`Note: the repo config (${loaded.files.repo}) also sets ${result.key} and wins over this file.`];
    }
    return [];
  } catch (error) {
    if (!isOttoError(error)) throw error;
    return ["Note: the config has other problems; run /otto-config validate."];
  }
}

/**
 * `key value…` or `key=value…`: headless, `opencode run` cannot pass a bare number as an argument of
 * its own (`-- set spec.max_parallel_tasks 2` fails in OpenCode's parser), but `spec.max_parallel_tasks=2` is text.
 */
function keyAndValue(positionals: string[]): string[] {
  const [first = "", ...rest] = positionals;
  const eq = /^([\w.[\]-]+)=([\s\S]*)$/.exec(first);
  if (eq) return [eq[1] ?? "", ...[eq[2] ?? "", ...rest].filter((word, i) => i > 0 || word !== "" || rest.length === 0)];
  if (rest.length === 0)
    throw new OttoError("usage", `Missing value for '${first}'.`, "Usage: /otto-config set <key> <value> | <key>=<value> [--user]");
  return positionals;
}

const set: Verb = {
  path: ["set"],
  args: "<key> <value> | <key>=<value> [--user]",
  summary: "Set one key in the repo config (or the user config with --user; secrets always go there); JSON values in single quotes",
  options: { user: { type: "boolean" } },
  positionals: { min: 1, max: 100 },
  async run({ values, positionals }, { runtime }) {
    const [key = "", ...words] = keyAndValue(positionals);
    const files = await locateConfigFiles({ directory: runtime.directory, env: runtime.env });
    // Outside a repository there is no repo file to write, so the user file is the target. A
    // secret never goes to the repo file: it is committed and pushed with the repo.
    const secret = isSecretKey(parseKeyPath(key));
    const scope = values.user === true || files.repo === undefined || secret ? "user" : "repo";
    const file = scope === "repo" && files.repo ? files.repo : files.user;
    const result = await setConfigValue(file, key, words.join(" "), { scope });
    const lines = result.changed
      ? [`Set ${result.key} in the ${scope} config ${result.file}${result.created ? " (created the file)" : ""}:`]
      : [`${result.key} already had this value in the ${scope} config ${result.file}; nothing changed.`];
    if (result.changed)
      lines.push(`  before: ${showValue(result.key, result.previous)}`, `  after:  ${showValue(result.key, result.value)}`);
    if (values.user !== true && files.repo === undefined) lines.push("Not inside a git repository, so the user config was changed.");
    else if (values.user !== true && secret)
      lines.push(
        `${result.key} is a secret, so it went to your user config, never the repo config (${files.repo ?? ""}), which is committed with the repo.`,
      );
    lines.push(...(await overrideNotes(runtime, result)));
    return { title: `otto config: set ${result.key}`, output: lines.join("\n") };
  },
};

const validate: Verb = {
  path: ["validate"],
  summary: "Check the user and repo config files; lists every problem with file:line:column",
  async run(_input, { runtime }) {
    const report = await validateConfig({ directory: runtime.directory, env: runtime.env });
    const files = [
      `  user: ${report.files.user}${report.found.user ? "" : " (not found)"}`,
      `  repo: ${report.files.repo ?? "(not inside a git repository)"}${report.files.repo && !report.found.repo ? " (not found)" : ""}`,
    ];
    const warnings = report.warnings.length > 0 ? ["", "Warnings:", ...report.warnings.map((w) => `- ${w}`)] : [];
    if (report.problems.length === 0) return [report.warnings.length > 0 ? "OK, with warnings" : "OK", ...files, ...warnings].join("\n");
    const count = report.problems.length === 1 ? "1 problem" : `${report.problems.length} problems`;
    return [`Invalid otto config (${count}):`, formatConfigProblems(report.problems), "", "Files:", ...files, ...warnings].join("\n");
  },
};

const paths: Verb = {
  path: ["path"],
  summary: "Print the paths of the user and repo config files",
  async run(_input, { runtime }) {
    const files = await locateConfigFiles({ directory: runtime.directory, env: runtime.env });
    return [`user: ${files.user}`, `repo: ${files.repo ?? "(not inside a git repository)"}`].join("\n");
  },
};

/** /otto-config: show, set, validate and locate otto's configuration. */
export function configCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    {
      name: "otto-config",
      summary: "show, change and check otto's configuration; trust a repo's config",
      verbs: [show, set, validate, paths, modelsVerb, trustVerb],
    },
    runtime,
  );
}
