import { describe, expect, it } from "vitest";
import type { ToolContext } from "@opencode-ai/plugin";
import { EventBus, OttoError, silentLogger } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { defineCommand, matchVerb, type CommandSpec } from "../../../src/tools/command.ts";
import { splitArgs } from "../../../src/tools/split-args.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";

const calls: unknown[] = [];
const spec: CommandSpec = {
  name: "otto-demo",
  summary: "demo command",
  verbs: [
    {
      path: ["task"],
      args: "<what>",
      summary: "one task",
      positionals: { min: 1, max: 1 },
      run: async ({ positionals }) => {
        calls.push(["task", positionals]);
        return `task ${positionals[0]}`;
      },
    },
    {
      path: ["task", "generate"],
      args: "[--spec <slug>]",
      summary: "generate tasks",
      options: { spec: { type: "string" } },
      run: async ({ values }) => {
        calls.push(["generate", values]);
        return { title: "generated", output: `spec=${String(values.spec)}` };
      },
    },
    {
      path: ["fail"],
      summary: "always fails",
      run: () => Promise.reject(new OttoError("boom", "It broke.", "Run /otto-demo task x")),
    },
  ],
};

const runtime = {
  client: {} as Runtime["client"],
  directory: "/tmp",
  worktree: "/tmp",
  events: new EventBus(),
  log: silentLogger,
  env: {},
  once: new Set<string>(),
  secrets: new KnownSecrets(),
  sessions: {} as Runtime["sessions"],
  guard: {} as Runtime["guard"],
  meter: {} as Runtime["meter"],
} satisfies Runtime;

const titles: string[] = [];
const toolCtx = {
  sessionID: "s",
  messageID: "m",
  agent: "otto",
  directory: "/tmp",
  worktree: "/tmp",
  abort: new AbortController().signal,
  metadata: (input: { title?: string }) => {
    if (input.title) titles.push(input.title);
  },
  ask: () => Promise.resolve(),
} satisfies ToolContext;

const tool = defineCommand(spec, runtime);
const run = async (args: string): Promise<string> => {
  const result = await tool.execute({ args }, toolCtx);
  return typeof result === "string" ? result : result.output;
};
/** A refusal's tool result says it failed, for a client of `opencode serve`. */
const failed = async (args: string): Promise<unknown> => {
  const result = await tool.execute({ args }, toolCtx);
  return typeof result === "string" ? undefined : result.metadata?.failed;
};

describe("splitArgs", () => {
  it("honours quotes", () => {
    expect(splitArgs(`add "rate limit the API" --spec 'a b'`)).toEqual(["add", "rate limit the API", "--spec", "a b"]);
    expect(splitArgs("   ")).toEqual([]);
  });

  it("keeps natural text as typed: quotes group only at the start of a word, a flag after the text still parses", () => {
    expect(splitArgs("task add fix the user's page --spec x")).toEqual(["task", "add", "fix", "the", "user's", "page", "--spec", "x"]);
    expect(splitArgs(`add don't break the "legacy" API, it's 5'10" wide`)).toEqual([
      "add",
      "don't",
      "break",
      "the",
      "legacy",
      "API,",
      "it's",
      `5'10"`,
      "wide",
    ]);
    expect(splitArgs(`add "say 'hi' to them" --title="a b" --spec 'x y'`)).toEqual([
      "add",
      "say 'hi' to them",
      "--title=a b",
      "--spec",
      "x y",
    ]);
    expect(splitArgs(`add 'unclosed quote stays a letter`)).toEqual(["add", "'unclosed", "quote", "stays", "a", "letter"]);
    expect(splitArgs(String.raw`add C:\path\to\file`)).toEqual(["add", String.raw`C:\path\to\file`]);
  });

  it('undoes the quoting of `opencode run`: an argument with a space arrives as "…" with its quotes escaped', () => {
    // `opencode run --command otto-config -- set spec.verify '["npm test", "npm run lint"]'`
    expect(splitArgs(String.raw`set spec.verify "[\"npm test\", \"npm run lint\"]"`)).toEqual([
      "set",
      "spec.verify",
      '["npm test", "npm run lint"]',
    ]);
    // `-- add 'don't break "health" now'`: an escaped quote before a space does not close the group.
    expect(splitArgs(String.raw`add "don't break \"health\" now" --spec x`)).toEqual(["add", `don't break "health" now`, "--spec", "x"]);
    // Outside a double-quoted group a backslash stays a backslash.
    expect(splitArgs(String.raw`add say \"hi\"`)).toEqual(["add", "say", String.raw`\"hi\"`]);
  });

  it("splits again a command line passed as one quoted argument, as wrappers do", () => {
    expect(splitArgs(`"set spec.max_parallel_tasks 2"`)).toEqual(["set", "spec.max_parallel_tasks", "2"]);
    expect(splitArgs(`"--since 7d --by spec"`)).toEqual(["--since", "7d", "--by", "spec"]);
    expect(splitArgs(String.raw`"add \"rate limit\" --spec x"`)).toEqual(["add", "rate limit", "--spec", "x"]);
    // One quoted word without spaces, or a group beside other words, is kept.
    expect(splitArgs(`"show"`)).toEqual(["show"]);
    expect(splitArgs(`add "rate limit"`)).toEqual(["add", "rate limit"]);
  });
});

describe("matchVerb", () => {
  it("prefers the longest verb path", () => {
    expect(matchVerb(spec, ["task", "generate"])?.verb.path).toEqual(["task", "generate"]);
    expect(matchVerb(spec, ["task", "x"])?.verb.path).toEqual(["task"]);
    expect(matchVerb(spec, ["nope"])).toBeUndefined();
  });
});

describe("defineCommand", () => {
  it("lists the verbs in the description, naming a verb without words by its argument", () => {
    expect(tool.description).toContain("(verbs: task, task generate, fail).");
    const verb = (path: string[], args?: string) => ({ path, ...(args ? { args } : {}), summary: "s", run: async () => "" });
    const review = defineCommand(
      { name: "pr-review", summary: "r", verbs: [verb([], "<url|number> [--loop]"), verb(["post"], "<ids|all>")] },
      runtime,
    );
    expect(review.description).toContain("(verbs: <url|number>, post).");
    const build = defineCommand({ name: "otto-build", summary: "b", verbs: [verb([], "[--spec <slug>]"), verb(["status"])] }, runtime);
    expect(build.description).toContain("(verbs: (none), status).");
  });

  it("prints usage for empty args and help, touching nothing", async () => {
    calls.length = 0;
    for (const args of ["", "help", "--help"]) {
      const out = await run(args);
      expect(out).toContain("/otto-demo task generate [--spec <slug>]");
    }
    expect(calls).toEqual([]);
  });

  it("dispatches to the verb with parsed options", async () => {
    calls.length = 0;
    expect(await tool.execute({ args: "task generate --spec rate" }, toolCtx)).toEqual({
      title: "generated",
      output: "spec=rate",
      metadata: {},
    });
    expect(await run(`task "hello world"`)).toBe("task hello world");
    expect(calls).toHaveLength(2);
  });

  it("answers verb --help without running it", async () => {
    calls.length = 0;
    const out = await run("task generate --help");
    expect(out).toContain("Usage: /otto-demo task generate");
    expect(out).toContain("--spec <value>");
    expect(calls).toEqual([]);
  });

  it("reports usage errors with the usage line", async () => {
    expect(await run("task generate --bogus")).toMatch(/Error: .*bogus[\s\S]*Next step: Usage: \/otto-demo task generate/);
    expect(await run("task")).toMatch(/Missing argument/);
    expect(await run("task a b")).toMatch(/Unexpected argument 'b'/);
    expect(await run("frobnicate")).toMatch(/unknown verb 'frobnicate'[\s\S]*Usage:/);
  });

  it("turns OttoError into an error with a next step", async () => {
    expect(await run("fail")).toBe("Error: It broke.\nNext step: Run /otto-demo task x");
  });

  it("marks a refusal's tool result failed, and only a refusal's", async () => {
    expect(await failed("fail")).toBe(true);
    expect(await failed("frobnicate")).toBe(true);
    expect(await failed("task generate --bogus")).toBe(true);
    expect(await failed("help")).toBeUndefined();
  });
});
