import type { Env } from "../../core/index.ts";
import { changedOpenCodeConfig, headSha, runGit } from "../../workspace/index.ts";
import type { PrFrontmatter } from "../store/document.ts";
import type { PrInfo } from "../types.ts";

/*
 * A session otto opens in a PR's checkout makes the user's OpenCode load that checkout's OpenCode
 * configuration (src/workspace/opencode-config.ts): a plugin runs in the user's OpenCode, an MCP
 * command starts, an agent entry or instruction file steers the session. Even from an author with
 * write access, that is code run on the user's machine outside any CI, so the watcher does not
 * open a session in a PR whose head changes it: the fix and comment flows hand the PR to a person
 * instead (one notification per head), until a person runs /otto-pr fix by hand, which proceeds
 * and records the head it accepted (`config_ok_sha`). Later changes are judged from that head.
 */

/** Head SHA otto last notified about for a configuration hold, and the head a person accepted. */
type HoldState = Pick<PrFrontmatter, "config_ok_sha" | "config_hold_sha">;

export interface ConfigCheck {
  /** The configuration files the head changes; empty when none. */
  files: string[];
  /** What they were compared with, for the PR document. */
  since: string;
  /** The commit checked (HEAD of the tree): what a person's run by hand accepts. */
  head: string;
}

/**
 * The OpenCode configuration the PR's head (HEAD of `dir`) changes: since the head a person
 * accepted when there is one it descends from, else against the target branch (fetched). When git
 * cannot tell (the target cannot be fetched), every configuration file counts as changed: a `*`.
 */
export async function configChanges(input: {
  dir: string;
  remote: string;
  pr: Pick<PrInfo, "targetBranch">;
  state: HoldState;
  env: Env;
}): Promise<ConfigCheck> {
  const { dir, remote, pr, state, env } = input;
  const head = (await headSha(dir, { env })) ?? "";
  if (state.config_ok_sha) {
    const ancestor = await runGit(["merge-base", "--is-ancestor", state.config_ok_sha, "HEAD"], { cwd: dir, env });
    if (ancestor.exitCode === 0) {
      const files = await changedOpenCodeConfig(dir, state.config_ok_sha, { env, direct: true });
      if (files) return { files, since: `the head a person accepted (${state.config_ok_sha.slice(0, 7)})`, head };
    }
  }
  const target = `refs/remotes/${remote}/${pr.targetBranch}`;
  await runGit(["fetch", "-q", remote, `+refs/heads/${pr.targetBranch}:${target}`], { cwd: dir, env });
  const files = await changedOpenCodeConfig(dir, target, { env });
  return files
    ? { files, since: `${remote}/${pr.targetBranch}`, head }
    : { files: ["*"], since: `${remote}/${pr.targetBranch} (which otto could not compare with)`, head };
}

/** Whether this head's hold is news: one notification per head. */
export function notifyHold(state: HoldState, headSha: string): boolean {
  return state.config_hold_sha !== headSha;
}

/** The PR document's line and the notification's words for a PR whose head changes OpenCode configuration. */
export function holdText(
  pr: Pick<PrInfo, "number" | "title">,
  check: ConfigCheck,
  what: string,
  command: string,
): { title: string; text: string; log: string } {
  const shown =
    check.files
      .slice(0, 8)
      .map((f) => `\`${f}\``)
      .join(", ") + (check.files.length > 8 ? `, … (${check.files.length} in all)` : "");
  const why = `the PR's head changes OpenCode configuration (${shown}, compared with ${check.since}), which OpenCode would load into your OpenCode when otto opened a session in its checkout: plugins and tools are code it imports, MCP servers commands it starts, agent entries and instruction files steer the session`;
  return {
    title: `PR #${pr.number}: its OpenCode configuration changed; otto waits for a person`,
    text: `otto did not ${what} on PR #${pr.number} (${pr.title}): ${why}. Look at those changes; if you trust them, run ${command} and otto works on this head (and on later ones that leave the configuration as it is).`,
    log: `otto did not ${what}: ${why}; waiting for ${command} by a person`,
  };
}
