import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * Real webhook payloads (@octokit/webhooks-examples, GitHub's own examples) rewritten to the fake
 * GitHub: its repository, PR, head commit and API URL. What a runner finds at GITHUB_EVENT_PATH.
 */

interface Example {
  name: string;
  examples: Array<Record<string, unknown>>;
}

import { AZURE_IDENTITY_LINES } from "../../../src/pr/ci/init/index.ts";

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Example[];

/** A deep copy of the first example of `event` that `pick` accepts. */
export function example(event: string, pick: (payload: Record<string, unknown>) => boolean): Record<string, unknown> {
  const found = examples.find((e) => e.name === event)?.examples.find(pick);
  if (!found) throw new Error(`no ${event} example matches`);
  return JSON.parse(JSON.stringify(found)) as Record<string, unknown>;
}

/** Every github.com API URL of the payload pointed at `apiUrl`, and its repository renamed to `repo`. */
export function rewrite(payload: Record<string, unknown>, input: { apiUrl: string; repo: string }): Record<string, unknown> {
  const original = (payload.repository as { full_name: string }).full_name;
  const text = JSON.stringify(payload).replaceAll("https://api.github.com", input.apiUrl).replaceAll(original, input.repo);
  const out = JSON.parse(text) as Record<string, unknown>;
  const [owner, name] = input.repo.split("/");
  const repository = out.repository as Record<string, unknown>;
  repository.full_name = input.repo;
  repository.name = name;
  (repository.owner as Record<string, unknown>).login = owner;
  return out;
}

/** Writes `payload` where a runner keeps it; the caller removes `dir`. */
export function eventFile(payload: unknown): { file: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-ci-event-"));
  const file = path.join(dir, "event.json");
  fs.writeFileSync(file, JSON.stringify(payload));
  return { file, dir };
}

/** A fresh HOME and XDG data, state and cache for one run, as a new runner has (the config dir is the job's setup and stays). */
export function freshRunner(root: string): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(root, "runner-"));
  const env: Record<string, string> = {
    HOME: path.join(dir, "home"),
    XDG_DATA_HOME: path.join(dir, "data"),
    XDG_STATE_HOME: path.join(dir, "state"),
    XDG_CACHE_HOME: path.join(dir, "cache"),
  };
  for (const d of Object.values(env)) fs.mkdirSync(d, { recursive: true });
  // A runner's home as the generated workflow and pipelines leave it (ci init's configure step:
  // `git config --global` with a credential helper that reads the job's token, and an identity),
  // and actions/checkout's safe.directory for the workspace. Nothing of it may make otto's fix stop.
  const helper = '!f() { test "$1" = get && echo username=x-access-token && echo "password=$GITHUB_TOKEN"; }; f';
  fs.writeFileSync(
    path.join(env.HOME ?? dir, ".gitconfig"),
    [
      '[credential "https://github.com"]',
      `\thelper = ${JSON.stringify(helper)}`,
      "[user]",
      "\tname = github-actions[bot]",
      "\temail = 41898282+github-actions[bot]@users.noreply.github.com",
      "[safe]",
      `\tdirectory = ${path.join(root, "project")}`,
      "",
    ].join("\n"),
  );
  return env;
}

/**
 * An Azure runner's git identity as the generated configure step sets it: the lines of the step,
 * run in the runner's HOME against the (fake) Azure DevOps the token belongs to. Asynchronous: the
 * fake answers curl from this process.
 */
export async function azureRunnerIdentity(home: string, env: { SYSTEM_COLLECTIONURI: string; SYSTEM_ACCESSTOKEN: string }): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    execFile(
      "bash",
      ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", AZURE_IDENTITY_LINES.join("\n")],
      { encoding: "utf8", timeout: 60_000, env: { PATH: process.env.PATH, HOME: home, ...env } },
      (error, stdout) => (error ? reject(new Error(`the identity lines failed: ${stdout}`, { cause: error })) : resolve()),
    ),
  );
}
