import path from "node:path";
import { readTextIfExists, type Env, type RuntimeBase } from "../core/index.ts";
import { describeRepoFileSecrets, findRepoFileSecrets } from "./committed.ts";
import { locateConfigFiles, type ConfigFiles } from "./files.ts";
import { parseConfigText } from "./parse.ts";
import { configError, type ConfigProblem } from "./problems.ts";
import { resolveConfig, type ResolvedConfig } from "./resolve.ts";
import { RETIRED_KEYS } from "./schema.ts";
import { tooShortSecrets } from "./secrets.ts";
import type { ConfigLayer } from "./sources.ts";
import { gatedDigest, gatedValues, isRepoTrusted, withoutGated } from "./trust.ts";

export interface LoadOptions {
  /** The directory the command runs in; its git top-level holds the repo config. */
  directory: string;
  env: Env;
  /**
   * The plugin runtime, when there is one: the config's secrets join its known secrets (and the
   * result's `secrets` holds them all), and ignored untrusted keys are logged once per process.
   */
  runtime?: Pick<RuntimeBase, "log"> & Partial<Pick<RuntimeBase, "secrets" | "once">>;
}

export interface LoadedConfig extends ResolvedConfig {
  files: { user: string; repo: string | undefined };
  /** Which of the files exist. */
  found: { user: boolean; repo: boolean };
  /** Keys of the repo file ignored because the repo is not trusted (TRUST_GATED_KEYS); unset: none. */
  untrusted?: string[];
}

export interface ValidationReport {
  files: { user: string; repo: string | undefined };
  found: { user: boolean; repo: boolean };
  /** Every problem in both files, in file order; empty when the config is valid. */
  problems: ConfigProblem[];
  /** Valid but unsafe or ignored: credentials in the repo file, secrets too short to redact, untrusted keys. */
  warnings: string[];
}

interface ReadLayer {
  found: boolean;
  layer: ConfigLayer | undefined;
  problems: ConfigProblem[];
}

async function readLayer(file: string | undefined, scope: ConfigLayer["scope"]): Promise<ReadLayer> {
  if (!file) return { found: false, layer: undefined, problems: [] };
  let text: string | undefined;
  try {
    text = await readTextIfExists(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const fix = `Check that ${file} is a readable file.`;
    return {
      found: true,
      layer: undefined,
      problems: [{ file, line: 1, column: 1, key: "(top level)", expected: "a readable file", found: code, fix }],
    };
  }
  if (text === undefined) return { found: false, layer: undefined, problems: [] };
  const parsed = parseConfigText(text, { file, scope });
  const layer = parsed.value ? { scope, file, value: parsed.value } : undefined;
  return { found: true, layer, problems: parsed.problems };
}

async function readBoth(options: LoadOptions): Promise<{ files: ConfigFiles; user: ReadLayer; repo: ReadLayer; untrusted: string[] }> {
  const files = await locateConfigFiles(options);
  const [user, repo] = await Promise.all([readLayer(files.user, "user"), readLayer(files.repo, "repo")]);
  const untrusted = await gateRepoLayer(repo, files, options.env);
  return { files, user, repo, untrusted };
}

/** Drops the trust-gated keys from an untrusted repo layer (in place); returns the keys dropped. */
async function gateRepoLayer(repo: ReadLayer, files: ConfigFiles, env: Env): Promise<string[]> {
  if (!repo.layer || !files.repo) return [];
  const gated = gatedValues(repo.layer.value);
  const keys = Object.keys(gated);
  if (keys.length === 0) return [];
  const root = files.repoRoot ?? path.dirname(path.dirname(files.repo));
  if (await isRepoTrusted(env, root, gatedDigest(gated))) return [];
  repo.layer = { ...repo.layer, value: withoutGated(repo.layer.value) };
  return keys;
}

/** What otto says when it ignores keys of an untrusted repo file. */
export function untrustedNote(file: string, keys: readonly string[]): string {
  return `Ignored ${keys.join(", ")} from ${file}: a repo's config may not choose where your tokens and notifications go until you trust the repo. Review the file, then run /otto-config trust.`;
}

/** Reads, validates and resolves the user and repo config. Throws `config_invalid` listing every problem. */
export async function loadConfig(options: LoadOptions): Promise<LoadedConfig> {
  const { files, user, repo, untrusted } = await readBoth(options);
  const problems = [...user.problems, ...repo.problems];
  if (problems.length > 0) throw configError(problems);
  const layers = [user.layer, repo.layer].filter((l): l is ConfigLayer => l !== undefined);
  const resolved = resolveConfig({ layers, env: options.env });
  const { runtime } = options;
  if (runtime?.secrets) {
    runtime.secrets.add(resolved.secrets);
    resolved.secrets = runtime.secrets.values();
  }
  if (runtime && untrusted.length > 0 && files.repo && !runtime.once?.has(`untrusted:${files.repo}`)) {
    runtime.once?.add(`untrusted:${files.repo}`);
    runtime.log.log("warn", untrustedNote(files.repo, untrusted));
  }
  return {
    ...resolved,
    files: { user: files.user, repo: files.repo },
    found: { user: user.found, repo: repo.found },
    untrusted,
  };
}

const hasKey = (value: unknown, key: string): boolean => {
  let at: unknown = value;
  for (const part of key.split(".")) {
    if (typeof at !== "object" || at === null || !(part in at)) return false;
    at = (at as Record<string, unknown>)[part];
  }
  return true;
};

/** Like loadConfig, but returns the problems of both files instead of throwing. */
export async function validateConfig(options: LoadOptions): Promise<ValidationReport> {
  const { files, user, repo, untrusted } = await readBoth(options);
  const warnings: string[] = [];
  const repoText = files.repo ? await readTextIfExists(files.repo).catch(() => undefined) : undefined;
  const inRepo = files.repo && repoText !== undefined ? findRepoFileSecrets(repoText, files.repo) : [];
  if (inRepo.length > 0) {
    warnings.push(
      `The repo config is committed with the repo, yet holds credentials; otto refuses to commit it like this. Move them to the user config (/otto-config set <key> <value>) or the environment, then rotate them if they were ever pushed:\n${describeRepoFileSecrets(inRepo)}`,
    );
  }
  for (const layer of [user.layer, repo.layer]) {
    for (const key of layer ? tooShortSecrets(layer.value) : []) {
      warnings.push(
        `${layer?.file ?? ""}: the value of ${key} is shorter than 3 characters; otto does not redact values that short (they would blank every occurrence). Is it really the credential?`,
      );
    }
  }
  if (untrusted.length > 0 && files.repo) warnings.push(untrustedNote(files.repo, untrusted));
  for (const layer of [user.layer, repo.layer]) {
    for (const [key, instead] of Object.entries(RETIRED_KEYS)) {
      if (layer && hasKey(layer.value, key)) warnings.push(`${layer.file}: ${key} is no longer used: ${instead}.`);
    }
  }
  return {
    files: { user: files.user, repo: files.repo },
    found: { user: user.found, repo: repo.found },
    problems: [...user.problems, ...repo.problems],
    warnings,
  };
}
