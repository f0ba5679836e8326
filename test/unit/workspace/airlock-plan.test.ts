import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AIRLOCKED, airlockGit, type AirlockResult, type AirlockRun } from "../../../src/workspace/airlock.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * The airlock's plan, with its three gits recorded (airlock.test.ts and airlock-bundle.test.ts run
 * it with real git and bubblewrap): which git runs where, with which arguments and configuration,
 * and what each failure says.
 */

const SHA = "a".repeat(40);
const OLD = "b".repeat(40);
const ok = (stdout = ""): AirlockResult => ({ exitCode: 0, stdout, stderr: "" });
const fail = (stderr = "boom\n", exitCode = 1): AirlockResult => ({ exitCode, stdout: "", stderr });

type Call = {
  git: "own" | "tree" | "bare";
  args: string[];
  cwd?: string;
  config?: ReadonlyArray<readonly [string, string]>;
  options?: unknown;
};

const CONFIG = [
  "core.bare\nfalse",
  "REMOTE.origin.URL\nhttps://github.com/o/r.git",
  "remote.origin.pushurl\nhttps://push.example/o/r.git",
  "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*",
  "credential.helper\nstore",
  "http.https://github.com/.extraheader\nAUTHORIZATION: basic x",
  "url.https://mirror/.insteadof\nhttps://github.com/",
  "core.sshCommand\nssh -i key",
  "user.name\nn",
  "credential.usehttppath",
  // Not settings that reach the remote: a key that only contains `http.`, a longer name than `core.sshcommand`.
  "branch.main.http.x\nv",
  "core.sshcommandx\nv",
  "",
].join("\0");

function setup(
  respond: Partial<{ own: (args: string[]) => AirlockResult | undefined; tree: (args: string[]) => AirlockResult | undefined }> = {},
  config = CONFIG,
) {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "otto-airlock-plan-"));
  removeAfterTest(cache);
  const calls: Call[] = [];
  const run: AirlockRun = {
    own: async (args, cwd, cfg) => {
      calls.push({ git: "own", args, cwd, config: cfg });
      const given = respond.own?.(args);
      if (given) return given;
      if (args[0] === "init") {
        fs.mkdirSync(args[3]!, { recursive: true });
        fs.writeFileSync(path.join(args[3]!, "HEAD"), "ref: refs/heads/main\n");
      }
      if (args[0] === "cat-file") return fail("");
      if (args[0] === "for-each-ref") return ok(`${OLD}\n${OLD}\n${"c".repeat(40)}\n`);
      if (args[0] === "rev-parse") return ok(`${SHA}\n`);
      return ok();
    },
    tree: async (args, options) => {
      calls.push({ git: "tree", args, options });
      const given = respond.tree?.(args);
      if (given) return given;
      if (args[0] === "rev-parse") return ok(`${SHA}\n`);
      if (args[0] === "cat-file") return ok(`${OLD} commit\n${"c".repeat(40)} missing\n`);
      if (args[0] === "bundle") return { ...ok(), bytes: Buffer.from("bundle bytes") };
      return ok();
    },
    bare: async (args) => {
      calls.push({ git: "bare", args });
      return args.includes("--list") ? ok(config) : ok();
    },
  };
  const layout = { root: "/w/repo", gitDir: "/w/repo/.git", commonDir: "/w/repo/.git" };
  const own = (url: string) => path.join(cache, "otto", "airlock", `${createHash("sha256").update(url).digest("hex").slice(0, 20)}.git`);
  const git = (...args: string[]) => airlockGit(args, layout, { XDG_CACHE_HOME: cache, HOME: "/nonexistent" }, run);
  return { calls, git, own, cache };
}

const REACH = [
  ["credential.helper", "store"],
  ["http.https://github.com/.extraheader", "AUTHORIZATION: basic x"],
  ["url.https://mirror/.insteadof", "https://github.com/"],
  ["core.sshCommand", "ssh -i key"],
  ["credential.usehttppath", "true"],
];

describe("airlockGit: what it accepts", () => {
  it("fetch, push and ls-remote, with the options listed for each; anything else is a bug named as such", async () => {
    expect([...AIRLOCKED].sort()).toEqual(["fetch", "ls-remote", "push"]);
    const s = setup();
    const refused = async (args: string[], why: string) =>
      expect(s.git(...args)).rejects.toMatchObject({
        code: "git_airlock_unsupported",
        message: `otto cannot run \`git ${args.join(" ")}\` through its airlock (${why}).`,
        fix: "This is a bug in otto: report the command.",
      });
    await refused(["gc", "origin"], "not gc");
    await refused(["gc", "--all", "origin"], "not gc");
    await refused([], "not ");
    await refused(["fetch"], "no remote named");
    await refused(["fetch", "--depth=1", "-q", "--prune", "origin"], "option --depth=1, --prune");
    await refused(["push", "--force", "origin", "a:b"], "option --force");
    await refused(["ls-remote", "--tags", "--sort=x", "origin"], "option --sort=x");
    expect(s.calls).toEqual([]);
  });
});

describe("airlockGit: its files and names", () => {
  it("the bundle is written private to the user; otto's directory without HEAD is made again; a remote that starts with a dot is a path", async () => {
    const modes: number[] = [];
    const s = setup({
      own: (args) => {
        if (args[0] === "fetch" && args[2]?.endsWith(".bundle")) modes.push(fs.statSync(args[2]).mode & 0o777);
        return undefined;
      },
    });
    const dir = s.own("https://push.example/o/r.git");
    fs.mkdirSync(dir, { recursive: true });
    await s.git("push", "origin", "work:main");
    expect(modes).toEqual([0o600]);
    expect(s.calls.filter((c) => c.args[0] === "init")).toHaveLength(1);
    const dot = setup({ own: (args) => (args[0] === "cat-file" ? ok() : undefined) });
    await dot.git("push", ".up", "work:main");
    expect(dot.calls.filter((c) => c.git === "tree" && c.args[0] === "update-ref")).toEqual([]);
    expect(dot.calls.find((c) => c.args[0] === "push")?.config?.at(-1)).toEqual(["remote.origin.url", ".up"]);
  });
});

describe("airlockGit: every option listed", () => {
  it("each option listed for fetch, push and ls-remote is taken", async () => {
    const listed: Record<string, string[]> = {
      fetch: ["-q", "--quiet", "--no-tags", "--tags"],
      push: ["-q", "--quiet", "--no-verify", "--porcelain", "--no-follow-tags", "--dry-run", "--set-upstream", "-u"],
      "ls-remote": ["-q", "--quiet", "--symref", "--heads", "--tags", "--refs", "--exit-code"],
    };
    const s = setup();
    for (const [sub, options] of Object.entries(listed))
      for (const option of options) {
        const error: unknown = await s
          .git(sub, option, "origin", ...(sub === "ls-remote" ? [] : sub === "push" ? ["main:main"] : ["main"]))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect((error as { code?: string } | undefined)?.code, `${sub} ${option}`).not.toBe("git_airlock_unsupported");
      }
  });
});

describe("airlockGit: the remote and otto's directory", () => {
  it("ls-remote from otto's directory, made once, with the remote's address and the tree's reach settings as configuration", async () => {
    const s = setup();
    await s.git("ls-remote", "--heads", "origin", "main");
    await s.git("ls-remote", "origin");
    const dir = s.own("https://github.com/o/r.git");
    expect(s.calls.filter((c) => c.args[0] === "init")).toEqual([
      { git: "own", args: ["init", "-q", "--bare", dir], cwd: path.dirname(dir), config: [] },
    ]);
    expect(fs.statSync(path.dirname(dir)).mode & 0o777).toBe(0o700);
    expect(s.calls.filter((c) => c.args[0] === "ls-remote")).toEqual([
      {
        git: "own",
        args: ["ls-remote", "--heads", "origin", "main"],
        cwd: dir,
        config: [...REACH, ["remote.origin.url", "https://github.com/o/r.git"]],
      },
      { git: "own", args: ["ls-remote", "origin"], cwd: dir, config: [...REACH, ["remote.origin.url", "https://github.com/o/r.git"]] },
    ]);
    expect(s.calls[0]).toEqual({ git: "bare", args: ["config", "--file", "/w/repo/.git/config", "--null", "--list"] });
  });

  it("an address, a path or an unknown name is the remote itself; a remote without an address is an error naming the fix", async () => {
    const s = setup();
    await s.git("ls-remote", "https://other.example/x.git");
    await s.git("ls-remote", "./local.git");
    expect(s.calls.filter((c) => c.args[0] === "ls-remote").map((c) => [c.cwd, c.config?.at(-1)])).toEqual([
      [s.own("https://other.example/x.git"), ["remote.origin.url", "https://other.example/x.git"]],
      [s.own("./local.git"), ["remote.origin.url", "./local.git"]],
    ]);
    // A name the config lacks is taken as an address, as git takes it.
    await s.git("ls-remote", "upstream");
    expect(s.calls.at(-1)?.cwd).toBe(s.own("upstream"));
    const empty = setup({}, "remote.origin.url\n\0");
    await expect(empty.git("fetch", "origin", "main")).rejects.toMatchObject({
      code: "git_remote_missing",
      message: "/w/repo has no remote 'origin'.",
      fix: "Add it (git -C /w/repo remote add origin <url>), then run the command again.",
    });
  });

  it("a push goes to the remote's pushurl, a fetch to its url; without a pushurl, the url", async () => {
    const s = setup();
    await s.git("push", "origin", "main:main");
    expect(s.calls.find((c) => c.args[0] === "push")?.config?.at(-1)).toEqual(["remote.origin.url", "https://push.example/o/r.git"]);
    const t = setup({}, "remote.origin.url\nhttps://github.com/o/r.git\0");
    await t.git("push", "origin", "main:main");
    expect(t.calls.find((c) => c.args[0] === "push")?.config).toEqual([["remote.origin.url", "https://github.com/o/r.git"]]);
  });

  it("otto's directory that cannot be made: an error naming it", async () => {
    const s = setup({ own: (args) => (args[0] === "init" ? fail("denied\n") : undefined) });
    const dir = s.own("https://github.com/o/r.git");
    await expect(s.git("ls-remote", "origin")).rejects.toMatchObject({
      code: "git_airlock_dir",
      message: `Could not make otto's git directory ${dir}: denied`,
      fix: `Check that ${path.dirname(dir)} is writable.`,
    });
  });
});

describe("airlockGit: fetch", () => {
  it("mirrors the named refs at the remote's names in otto's directory, then fetches them into the tree from there, read-only", async () => {
    const s = setup();
    const dir = s.own("https://github.com/o/r.git");
    await s.git("fetch", "-q", "origin", "main", "+feature:refs/remotes/origin/feature", "refs/tags/v1:refs/tags/v1", "HEAD", "^old");
    const fetches = s.calls.filter((c) => c.args[0] === "fetch");
    expect(fetches).toEqual([
      {
        git: "own",
        args: [
          "fetch",
          "-q",
          "origin",
          "+refs/heads/main:refs/heads/main",
          "+refs/heads/feature:refs/heads/feature",
          "+refs/tags/v1:refs/tags/v1",
          "+HEAD:HEAD",
        ],
        cwd: dir,
        config: [...REACH, ["remote.origin.url", "https://github.com/o/r.git"]],
      },
      {
        git: "tree",
        args: ["fetch", "-q", dir, "main", "+feature:refs/remotes/origin/feature", "refs/tags/v1:refs/tags/v1", "HEAD", "^old"],
        options: { readOnly: [dir] },
      },
    ]);
  });

  it("without refs named, the remote's fetch refspecs; none at all is an error; a failed fetch outside stops there", async () => {
    const s = setup();
    await s.git("fetch", "origin");
    expect(s.calls.filter((c) => c.args[0] === "fetch").map((c) => c.args)).toEqual([
      ["fetch", "origin", "+refs/heads/*:refs/heads/*"],
      ["fetch", s.own("https://github.com/o/r.git"), "+refs/heads/*:refs/remotes/origin/*"],
    ]);
    await expect(s.git("fetch", "https://other.example/x.git")).rejects.toMatchObject({
      code: "git_airlock_unsupported",
      message: "otto's airlock fetches named refs only, and the remote has no fetch refspec.",
      fix: "Name the branch to fetch.",
    });
    const f = setup({ own: (args) => (args[0] === "fetch" ? fail("no route\n", 128) : undefined) });
    expect(await f.git("fetch", "origin", "main")).toEqual(fail("no route\n", 128));
    expect(f.calls.filter((c) => c.git === "tree")).toEqual([]);
  });
});

describe("airlockGit: push", () => {
  it("one unforced <from>:<to> refspec; anything else is a bug named as such", async () => {
    const s = setup();
    for (const [specs, got] of [
      [[], "none"],
      [["main"], "main"],
      [["+main:main"], "+main:main"],
      [["a:b", "c:d"], "a:b c:d"],
    ] as const)
      await expect(s.git("push", "origin", ...specs)).rejects.toMatchObject({
        code: "git_airlock_unsupported",
        message: `otto's airlock pushes one <from>:<to> refspec, never forced (got ${got}).`,
        fix: "This is a bug in otto: report the command.",
      });
  });

  it("a source that names no commit: git's own error, nothing pushed", async () => {
    const s = setup({ tree: (args) => (args[0] === "rev-parse" ? ok("fatal: nope\n") : undefined) });
    expect(await s.git("push", "origin", "nope:main")).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: "error: src refspec nope does not match any\n",
    });
    expect(s.calls.filter((c) => c.args[0] === "push")).toEqual([]);
    expect(s.calls.find((c) => c.git === "tree")?.args).toEqual(["rev-parse", "--verify", "-q", "nope^{commit}"]);
  });

  it("carries the commit as a bundle of what otto's directory lacks, checks it, pushes the commit from there, then records what a direct push would", async () => {
    const s = setup();
    const dir = s.own("https://push.example/o/r.git");
    const result = await s.git("push", "--porcelain", "--set-upstream", "origin", "work:refs/heads/feature");
    expect(result).toEqual(ok());
    const plan = s.calls.filter((c) => c.git !== "bare" || !c.args.includes("--list")).filter((c) => c.args[0] !== "init");
    const bundleRef = plan.find((c) => c.args[0] === "fetch")!.args[3]!.split(":")[1]!;
    expect(bundleRef).toMatch(/^refs\/otto-airlock\/airlock-[0-9a-f]{12}$/);
    expect(plan.map((c) => [c.git, ...c.args])).toEqual([
      ["tree", "rev-parse", "--verify", "-q", "work^{commit}"],
      ["own", "cat-file", "-e", `${SHA}^{commit}`],
      ["own", "for-each-ref", "--format=%(objectname)"],
      ["tree", "cat-file", "--batch-check=%(objectname) %(objecttype)"],
      ["tree", "bundle", "create", "-", "work", `^${OLD}`],
      ["own", "fetch", "-q", path.join(dir, `${bundleRef.split("/").at(-1)}.bundle`), `work:${bundleRef}`],
      ["own", "rev-parse", "--verify", "-q", bundleRef],
      ["own", "update-ref", "-d", bundleRef],
      ["own", "push", "--porcelain", "--no-verify", "origin", `${SHA}:refs/heads/feature`],
      ["own", "update-ref", "refs/heads/feature", SHA],
      ["tree", "update-ref", "refs/remotes/origin/feature", SHA],
      ["bare", "config", "--file", "/w/repo/.git/config", "branch.work.remote", "origin"],
      ["bare", "config", "--file", "/w/repo/.git/config", "branch.work.merge", "refs/heads/feature"],
    ]);
    expect(plan.find((c) => c.args[0] === "cat-file" && c.git === "tree")?.options).toEqual({ input: `${OLD}\n${"c".repeat(40)}\n` });
    expect(plan.find((c) => c.args[0] === "bundle")?.options).toEqual({ raw: true });
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".bundle"))).toEqual([]);
  });

  it("without -u no upstream is set; the gits in otto's directory that do not reach the remote get none of its settings", async () => {
    const s = setup();
    await s.git("push", "origin", "work:main");
    expect(s.calls.filter((c) => c.git === "bare" && !c.args.includes("--list"))).toEqual([]);
    const local = s.calls.filter((c) => c.git === "own" && !["init", "push"].includes(c.args[0]!));
    expect(local.map((c) => c.args[0])).toEqual(["cat-file", "for-each-ref", "fetch", "rev-parse", "update-ref", "update-ref"]);
    for (const call of local) expect(call.config, call.args.join(" ")).toEqual([]);
    expect(s.calls.find((c) => c.args[0] === "push")?.config).toEqual([...REACH, ["remote.origin.url", "https://push.example/o/r.git"]]);
  });

  it("what rev-parse prints is a commit id only when it is one whole", async () => {
    for (const printed of [`x${SHA}\n`, `${SHA}x\n`]) {
      const s = setup({ tree: (args) => (args[0] === "rev-parse" ? ok(printed) : undefined) });
      expect(await s.git("push", "origin", "work:main")).toEqual({
        exitCode: 1,
        stdout: "",
        stderr: "error: src refspec work does not match any\n",
      });
    }
  });

  it("a commit otto's directory has is not carried; a short destination is a branch; to an address, no remote-tracking ref", async () => {
    const s = setup({ own: (args) => (args[0] === "cat-file" ? ok() : undefined) });
    await s.git("push", "-u", "https://push.example/o/r.git", "refs/heads/work:main");
    const plan = s.calls.filter((c) => !c.args.includes("--list") && c.args[0] !== "init").map((c) => [c.git, ...c.args]);
    expect(plan).toEqual([
      ["tree", "rev-parse", "--verify", "-q", "refs/heads/work^{commit}"],
      ["own", "cat-file", "-e", `${SHA}^{commit}`],
      ["own", "push", "--no-verify", "origin", `${SHA}:refs/heads/main`],
      ["own", "update-ref", "refs/heads/main", SHA],
      ["bare", "config", "--file", "/w/repo/.git/config", "branch.work.remote", "https://push.example/o/r.git"],
      ["bare", "config", "--file", "/w/repo/.git/config", "branch.work.merge", "refs/heads/main"],
    ]);
  });

  it("a tag pushed: no remote-tracking ref; a dry run or a refused push records nothing", async () => {
    const have = { own: (args: string[]) => (args[0] === "cat-file" ? ok() : undefined) };
    const s = setup(have);
    await s.git("push", "origin", "v1:refs/tags/v1");
    expect(s.calls.filter((c) => c.git === "tree" && c.args[0] === "update-ref")).toEqual([]);
    expect(s.calls.filter((c) => c.git === "own" && c.args[0] === "update-ref").map((c) => c.args)).toEqual([
      ["update-ref", "refs/tags/v1", SHA],
    ]);
    const d = setup(have);
    await d.git("push", "--dry-run", "origin", "work:main");
    expect(d.calls.filter((c) => c.args[0] === "update-ref")).toEqual([]);
    expect(d.calls.find((c) => c.args[0] === "push")?.args).toEqual([
      "push",
      "--dry-run",
      "--no-verify",
      "origin",
      `${SHA}:refs/heads/main`,
    ]);
    const r = setup({ own: (args) => (args[0] === "cat-file" ? ok() : args[0] === "push" ? fail("rejected\n") : undefined) });
    expect(await r.git("push", "origin", "work:main")).toEqual(fail("rejected\n"));
    expect(r.calls.filter((c) => c.args[0] === "update-ref")).toEqual([]);
  });

  it("an empty otto's directory asks the tree nothing; a bundle that fails, cannot be read or holds another commit stops the push", async () => {
    const empty = setup({ own: (args) => (args[0] === "for-each-ref" ? ok("") : undefined) });
    await empty.git("push", "origin", "work:main");
    expect(empty.calls.filter((c) => c.git === "tree").map((c) => c.args[0])).toEqual(["rev-parse", "bundle", "update-ref"]);
    expect(empty.calls.find((c) => c.args[0] === "bundle")?.args).toEqual(["bundle", "create", "-", "work"]);

    const noBundle = setup({ tree: (args) => (args[0] === "bundle" ? fail(" cannot \n") : undefined) });
    await expect(noBundle.git("push", "origin", "work:main")).rejects.toMatchObject({
      code: "git_airlock_bundle",
      message: "Could not bundle work in the tree for the push: cannot",
      fix: "Run the command again; if it fails again, look at the tree's git state.",
    });
    const failedWithBytes = setup({
      tree: (args) => (args[0] === "bundle" ? { ...fail("partial\n", 128), bytes: Buffer.from("x") } : undefined),
    });
    await expect(failedWithBytes.git("push", "origin", "work:main")).rejects.toMatchObject({ code: "git_airlock_bundle" });
    const noBytes = setup({ tree: (args) => (args[0] === "bundle" ? ok() : undefined) });
    await expect(noBytes.git("push", "origin", "work:main")).rejects.toMatchObject({ code: "git_airlock_bundle" });

    const unread = setup({ own: (args) => (args[0] === "fetch" ? fail(" bad bundle \n") : undefined) });
    await expect(unread.git("push", "origin", "work:main")).rejects.toMatchObject({
      code: "git_airlock_bundle",
      message: "The bundle of work made in the tree could not be read (bad bundle): nothing pushed.",
      fix: "Something changed the tree's git state during the push; look at it, then run the command again.",
    });
    expect(unread.calls.filter((c) => c.args[0] === "rev-parse" && c.git === "own")).toEqual([]);
    expect(unread.calls.filter((c) => c.args[0] === "push")).toEqual([]);

    const other = setup({ own: (args) => (args[0] === "rev-parse" ? ok(`${OLD}\n`) : undefined) });
    await expect(other.git("push", "origin", "work:main")).rejects.toThrow(
      `The bundle of work made in the tree holds ${OLD}, not ${SHA}: nothing pushed.`,
    );
    const nothing = setup({ own: (args) => (args[0] === "rev-parse" ? ok("") : undefined) });
    await expect(nothing.git("push", "origin", "work:main")).rejects.toThrow(`holds nothing, not ${SHA}`);
    expect(nothing.calls.filter((c) => c.args[0] === "update-ref" && c.args[1] === "-d")).toHaveLength(1);
    const dir = nothing.own("https://push.example/o/r.git");
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".bundle"))).toEqual([]);
  });
});
