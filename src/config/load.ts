import { readTextIfExists, type Env } from "../core/index.ts";
import { locateConfigFiles, type ConfigFiles } from "./files.ts";
import { parseConfigText } from "./parse.ts";
import { configError, type ConfigProblem } from "./problems.ts";
import { resolveConfig, type ResolvedConfig } from "./resolve.ts";
import type { ConfigLayer } from "./sources.ts";

export interface LoadOptions {
  /** The directory the command runs in; its git top-level holds the repo config. */
  directory: string;
  env: Env;
}

export interface LoadedConfig extends ResolvedConfig {
  files: { user: string; repo: string | undefined };
  /** Which of the files exist. */
  found: { user: boolean; repo: boolean };
}

export interface ValidationReport {
  files: { user: string; repo: string | undefined };
  found: { user: boolean; repo: boolean };
  /** Every problem in both files, in file order; empty when the config is valid. */
  problems: ConfigProblem[];
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
    return { found: true, layer: undefined, problems: [{ file, line: 1, column: 1, key: "(top level)", expected: "a readable file", found: code, fix }] };
  }
  if (text === undefined) return { found: false, layer: undefined, problems: [] };
  const parsed = parseConfigText(text, { file, scope });
  const layer = parsed.value ? { scope, file, value: parsed.value } : undefined;
  return { found: true, layer, problems: parsed.problems };
}

async function readBoth(options: LoadOptions): Promise<{ files: ConfigFiles; user: ReadLayer; repo: ReadLayer }> {
  const files = await locateConfigFiles(options);
  const [user, repo] = await Promise.all([readLayer(files.user, "user"), readLayer(files.repo, "repo")]);
  return { files, user, repo };
}

/** Reads, validates and resolves the user and repo config. Throws `config_invalid` listing every problem. */
export async function loadConfig(options: LoadOptions): Promise<LoadedConfig> {
  const { files, user, repo } = await readBoth(options);
  const problems = [...user.problems, ...repo.problems];
  if (problems.length > 0) throw configError(problems);
  const layers = [user.layer, repo.layer].filter((l): l is ConfigLayer => l !== undefined);
  return {
    ...resolveConfig({ layers, env: options.env }),
    files: { user: files.user, repo: files.repo },
    found: { user: user.found, repo: repo.found },
  };
}

/** Like loadConfig, but returns the problems of both files instead of throwing. */
export async function validateConfig(options: LoadOptions): Promise<ValidationReport> {
  const { files, user, repo } = await readBoth(options);
  return {
    files: { user: files.user, repo: files.repo },
    found: { user: user.found, repo: repo.found },
    problems: [...user.problems, ...repo.problems],
  };
}
