import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus, silentLogger } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { prReviewCommand } from "../../../src/tools/pr-review.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";

/* The tool's argument handling: usage errors are answered before anything is read or run. */

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function run(args: string): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-prr-"));
  dirs.push(home);
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") };
  const runtime: Runtime = {
    client: {} as Runtime["client"],
    directory: home,
    worktree: home,
    events: new EventBus(),
    log: silentLogger,
    env,
    once: new Set(),
    secrets: new KnownSecrets(),
    sessions: {} as Runtime["sessions"],
    guard: {} as Runtime["guard"],
    meter: {} as Runtime["meter"],
  };
  const toolCtx = {
    sessionID: "s",
    messageID: "m",
    agent: "otto",
    directory: home,
    worktree: home,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask: () => Promise.resolve(),
  } satisfies ToolContext;
  const result = await prReviewCommand(runtime).execute({ args }, toolCtx);
  return typeof result === "string" ? result : result.output;
}

describe("otto_pr_review arguments", () => {
  it("lists both verbs; with no PR named it looks for the current branch's", async () => {
    const help = await run("help");
    expect(help).toContain(
      "/pr-review [url|number] [--post all|none] [--focus <text>] [--provider github|ado] [--loop [--budget <usd>] [--max-tokens <n>]]",
    );
    // Outside a repository: the cause, and advice that works there (not the PR-creation message).
    const outside = await run("");
    expect(outside).toMatch(/^Error: \S+ is not inside a git repository, so there is no current branch and no origin remote/);
    expect(outside).toContain("Next step: Name the PR: /pr-review <url>, or run /pr-review in a clone of the PR's repository.");
    expect(help).toContain("/pr-review post <ids|all> [--summary] [--pr <url|number>]");
  });

  it("refuses bad --post values and one-shot options with --loop", async () => {
    expect(await run("https://github.com/o/r/pull/1 --post some")).toMatch(/^Error: --post takes all or none, not 'some'\.\nNext step: /);
    expect(await run("https://github.com/o/r/pull/1 --loop --post all")).toMatch(
      /^Error: --post and --focus belong to the one-shot review/,
    );
    expect(await run("--post all")).toMatch(/^Error: \S+ is not inside a git repository/);
  });

  it("takes --budget and --max-tokens with --loop only, refusing a bad amount before anything runs", async () => {
    expect(await run("https://github.com/o/r/pull/1 --budget 2")).toMatch(/^Error: --budget and --max-tokens belong to --loop/);
    expect(await run("https://github.com/o/r/pull/1 --loop --budget two")).toBe(
      "Error: --budget two is not an amount in US dollars above 0.\nNext step: Write it like --budget 2.50 (dollars).",
    );
    expect(await run("https://github.com/o/r/pull/1 --loop --max-tokens 1.5")).toMatch(
      /^Error: --max-tokens 1\.5 is not a whole number of tokens above 0\./,
    );
  });

  it("post without a draft says to review first", async () => {
    expect(await run("post 1,3")).toBe(
      "Error: There is no review draft to post.\nNext step: Review the PR first: /pr-review <url|number>.",
    );
  });
});
