import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  assertSandbox,
  bwrapArgs,
  credentialPaths,
  describeSandbox,
  detectSandbox,
  planCommand,
  sandboxPolicy,
  seatbeltProfile,
  shellQuote,
  typedLine,
  type PathKind,
} from "../../../src/sandbox/index.ts";
import { runCheck } from "../../../src/workspace/index.ts";
import { testRoot } from "../../support/dev-home.ts";
import { recordFigure } from "../../support/figures.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

describe("the sandbox's policy (pure)", () => {
  const env = {
    HOME: "/home/u",
    XDG_CONFIG_HOME: "/home/u/.config",
    XDG_DATA_HOME: "/home/u/.local/share",
    SSH_AUTH_SOCK: "/run/user/1000/ssh.sock",
  };

  it("hides every credential store, otto's config and data, OpenCode's provider keys and the SSH agent", () => {
    const hidden = credentialPaths(env);
    for (const p of [
      "/home/u/.ssh",
      "/home/u/.config/gh",
      "/home/u/.git-credentials",
      "/home/u/.netrc",
      "/home/u/.npmrc",
      "/home/u/.config/otto",
      "/home/u/.local/share/otto",
      "/home/u/.local/share/opencode/auth.json",
      "/run/user/1000/ssh.sock",
    ]) {
      expect(hidden).toContain(p);
    }
  });

  it("mounts in an order where each layer lands on the right one: temp, an empty home, toolchains, stores, tree, git's control files read-only, hidden paths last", () => {
    const policy = sandboxPolicy({
      cwd: "/w/repo/src",
      tree: { root: "/w/repo", gitDirs: ["/w/repo/.git"] },
      env: { ...env, CARGO_HOME: "/opt/cargo" },
    });
    const kinds: Record<string, PathKind> = {
      "/tmp": "dir",
      "/var/tmp": "dir",
      "/home/u": "dir",
      "/w/repo": "dir",
      "/w/repo/.git": "dir",
      "/w/repo/.git/config": "file",
      "/w/repo/.git/hooks": "dir",
      "/home/u/.npm": "dir",
      "/home/u/.nvm": "dir",
      "/home/u/.ssh": "dir",
      "/home/u/.git-credentials": "file",
      "/opt/cargo/registry": "dir",
      "/opt/cargo/credentials.toml": "file",
      "/run/user/1000/ssh.sock": "file",
    };
    const args = bwrapArgs(policy, (p) => kinds[p] ?? "missing");
    expect(args.slice(0, 10)).toEqual([
      "--die-with-parent",
      "--unshare-pid",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
    ]);
    const at = (...pair: string[]) => args.findIndex((_, i) => pair.every((p, j) => args[i + j] === p));
    expect(at("--tmpfs", "/home/u")).toBeGreaterThan(at("--tmpfs", "/tmp"));
    expect(at("--ro-bind", "/home/u/.nvm", "/home/u/.nvm")).toBeGreaterThan(at("--tmpfs", "/home/u"));
    // Each store gets a layer of the run's own: here (no overlay) an empty one; never the store itself writable.
    expect(at("--tmpfs", "/home/u/.npm")).toBeGreaterThan(at("--ro-bind", "/home/u/.nvm"));
    expect(at("--tmpfs", "/opt/cargo/registry")).toBeGreaterThan(at("--tmpfs", "/home/u"));
    expect(at("--bind", "/home/u/.npm")).toBe(-1);
    expect(at("--bind", "/w/repo", "/w/repo")).toBeGreaterThan(at("--tmpfs", "/home/u/.npm"));
    // Where overlayfs works, the store is the layer's read-only lower half: what it holds is used, not changed.
    const overlay = bwrapArgs(policy, (p) => kinds[p] ?? "missing", "overlay");
    const pair = (...seq: string[]) => overlay.findIndex((_, i) => seq.every((p, j) => overlay[i + j] === p));
    expect(pair("--overlay-src", "/home/u/.npm", "--tmp-overlay", "/home/u/.npm")).toBeGreaterThan(pair("--tmpfs", "/home/u"));
    expect(pair("--overlay-src", "/opt/cargo/registry", "--tmp-overlay", "/opt/cargo/registry")).toBeGreaterThan(0);
    expect(pair("--bind", "/home/u/.npm")).toBe(-1);
    expect(at("--ro-bind", "/w/repo/.git/config")).toBeGreaterThan(at("--bind", "/w/repo/.git"));
    expect(at("--ro-bind", "/w/repo/.git/hooks")).toBeGreaterThan(at("--bind", "/w/repo/.git"));
    // Stores in the home are out of sight with it; the SSH agent's socket outside it is mounted over.
    expect(args).not.toContain("/home/u/.ssh");
    expect(args).not.toContain("/home/u/.git-credentials");
    // Cargo's credentials beside a CARGO_HOME outside the home would be readable through the read-only system: mounted over.
    expect(at("--ro-bind", "/dev/null", "/opt/cargo/credentials.toml")).toBeGreaterThan(at("--bind", "/w/repo", "/w/repo"));
    expect(at("--ro-bind", "/dev/null", "/run/user/1000/ssh.sock")).toBeGreaterThan(at("--bind", "/w/repo", "/w/repo"));
    expect(args).not.toContain("--unshare-net");
    expect(args.slice(-2)).toEqual(["--chdir", "/w/repo/src"]);
  });

  it("hides a credential folder that holds the tree before binding the tree into it", () => {
    const policy = sandboxPolicy({ cwd: "/home/u/.local/share/otto/wt", tree: { root: "/home/u/.local/share/otto/wt", gitDirs: [] }, env });
    const args = bwrapArgs(policy, () => "dir");
    const hide = args.findIndex((a, i) => a === "--tmpfs" && args[i + 1] === "/home/u/.local/share/otto");
    const bind = args.findIndex((a, i) => a === "--bind" && args[i + 1] === "/home/u/.local/share/otto/wt");
    expect(hide).toBeGreaterThan(0);
    expect(bind).toBeGreaterThan(hide);
  });

  it("writes the same policy as a Seatbelt profile for macOS", () => {
    const policy = sandboxPolicy({ cwd: "/w/repo", tree: { root: "/w/repo", gitDirs: ["/w/repo/.git"] }, env });
    const profile = seatbeltProfile(policy);
    expect(profile).toContain("(allow default)");
    expect(profile).toMatch(/\(deny file-write\* \(require-not \(require-any .*\(subpath "\/w\/repo"\)/);
    expect(profile).toContain('(deny file-write* (subpath "/w/repo/.git/config")');
    expect(profile).toMatch(/\(deny file-read\* file-write\* .*\(subpath "\/home\/u\/\.ssh"\)/);
  });

  it("macOS: a tree's git config holding a credential is unreadable in the profile (Seatbelt cannot show a copy in its place)", () => {
    const base = fs.mkdtempSync(path.join(testRoot(), "otto-seatbelt-"));
    try {
      const home = path.join(base, "home");
      const repo = path.join(base, "repo");
      fs.mkdirSync(home);
      const macEnv = {
        HOME: home,
        XDG_DATA_HOME: path.join(home, ".local", "share"),
        GIT_CONFIG_NOSYSTEM: "1",
        PATH: process.env.PATH ?? "",
      };
      execFileSync("git", ["init", "-q", repo], { env: macEnv });
      const config = path.join(fs.realpathSync(repo), ".git", "config");
      const plan = () =>
        planCommand(
          {
            mode: "required",
            cwd: repo,
            tree: { root: repo, gitDirs: [path.join(repo, ".git")] },
            env: macEnv,
            detected: { kind: "sandbox-exec", binary: "/usr/bin/sandbox-exec" },
          },
          "git remote -v",
        );
      const profileOf = (argv: string[]) => argv[argv.indexOf("-p") + 1] ?? "";
      const deny = `(deny file-read* (literal "${config}"))`;
      // The control: without a credential, the config is readable (git needs it).
      expect(profileOf(plan().argv)).not.toContain(deny);
      fs.appendFileSync(config, '[remote "origin"]\n\turl = https://x-access-token:ghs_SeatbeltToken0123456789abcdef@github.com/o/r\n');
      const profile = profileOf(plan().argv);
      expect(profile).toContain(deny);
      // Later rules win in SBPL: the denial comes after every rule that allows reading the tree.
      expect(profile.lastIndexOf(deny)).toBeGreaterThan(profile.lastIndexOf("(allow file-read*"));
      expect(profile).not.toContain("ghs_SeatbeltToken");
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("says which sandbox is active, and refuses an unattended flow under required without one", () => {
    const none = { kind: "none" as const, reason: "bubblewrap (bwrap) is not installed" };
    const bwrap = { kind: "bwrap" as const, binary: "/usr/bin/bwrap" };
    expect(describeSandbox("auto", {}, bwrap)).toMatchObject({
      active: "bwrap",
      line: expect.stringMatching(/^Sandbox: bwrap \(\/usr\/bin\/bwrap\)/) as unknown,
    });
    expect(describeSandbox("auto", {}, none).line).toContain("otto's environment and command guards alone");
    expect(describeSandbox("required", {}, none).line).toContain("refuse to start");
    expect(() => assertSandbox("required", {}, none)).toThrow(/sandbox: "required".*bubblewrap \(bwrap\) is not installed/s);
    expect(() => assertSandbox("auto", {}, none)).not.toThrow();
    expect(() => assertSandbox("required", {}, bwrap)).not.toThrow();
  });

  it("gives back the line a session typed from its sandboxed form, for messages", () => {
    const typed = `grep -r "it's" src | head`;
    expect(typedLine(`'/home/u/.local/share/otto/sandbox/run-0123456789abcdef.sh' ${shellQuote(typed)}`)).toBe(typed);
    expect(typedLine("npm test")).toBe("npm test");
  });

  it("quotes a command line as one argument, whatever it holds", () => {
    expect(execFileSync("/bin/sh", ["-c", `printf %s ${shellQuote(`it's "x" $HOME \`y\``)}`], { encoding: "utf8" })).toBe(
      `it's "x" $HOME \`y\``,
    );
  });

  it("sandbox off runs a plain shell; auto without a sandbox says why; required without one refuses", () => {
    const tree = { root: "/w", gitDirs: [] };
    const off = planCommand({ mode: "off", cwd: "/w", tree, env: {} }, "true");
    expect(off.sandbox === "none" && off.reason).toMatch(/off/);
    const none = { kind: "none" as const, reason: "bubblewrap (bwrap) is not installed" };
    expect(planCommand({ mode: "auto", cwd: "/w", tree, env: {}, detected: none }, "true")).toMatchObject({
      sandbox: "none",
      reason: none.reason,
    });
    expect(() => planCommand({ mode: "required", cwd: "/w", tree, env: {}, detected: none }, "true")).toThrow(/sandbox: "required"/);
  });
});

const available = detectSandbox().kind !== "none";

// .ci/run installs bubblewrap; a developer machine without it skips these, saying why.
describe.skipIf(!available)("checks in the sandbox (real bubblewrap)", () => {
  // The user's home outside /tmp (which the sandbox replaces), so each store is hidden on its own merits.
  const cacheDir = path.join(REPO_ROOT, "node_modules", ".cache");
  fs.mkdirSync(cacheDir, { recursive: true });
  const base = fs.mkdtempSync(path.join(cacheDir, "otto-sandbox-"));
  const home = path.join(base, "home");
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "otto-sandbox-repo-"));
  const outside = path.join(os.tmpdir(), `otto-sandbox-outside-${process.pid}`);
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    GITHUB_TOKEN: "ghp_checkTokenValue0123456789abcdefABCDEF",
  };
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
  fs.writeFileSync(path.join(home, ".git-credentials"), "https://user:secret-in-store@github.com\n");
  fs.mkdirSync(path.join(home, ".config", "otto"), { recursive: true });
  fs.writeFileSync(
    path.join(home, ".config", "otto", "otto.jsonc"),
    '{ "pr": { "providers": { "github": { "token": "ghp_fromOttoConfig" } } } }',
  );
  fs.mkdirSync(path.join(home, ".config", "gh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".config", "gh", "hosts.yml"), "github.com:\n  oauth_token: gho_x\n");
  fs.writeFileSync(outside, "another job's file");
  execFileSync("git", ["init", "-q", repo]);
  afterAll(() => {
    fs.rmSync(base, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(outside, { force: true });
  });

  const check = (command: string) => runCheck(command, { cwd: repo, timeoutMs: 20_000, env, sandbox: "required" });

  it("a check cannot read the user's credential stores or otto's config", async () => {
    const reads = [
      "cat ~/.git-credentials",
      "cat ~/.ssh/id_ed25519",
      "cat ~/.config/otto/otto.jsonc",
      "cat ~/.config/gh/hosts.yml",
      `cat ${outside}`,
    ];
    let through = 0;
    for (const command of reads) {
      const result = await check(command);
      if (result.passed || /secret-in-store|PRIVATE KEY|ghp_fromOttoConfig|oauth_token|another job/.test(result.output)) through++;
    }
    recordFigure({
      name: "commands of otto's work reading the user's credentials (git-credentials, ssh key, otto.jsonc, gh login, another job's temp file)",
      tried: reads.length,
      through,
    });
    expect(through).toBe(0);
  });

  it("a check cannot write git's hooks, config or info, nor outside its tree; it can write its tree", async () => {
    const writes = [
      "echo 'git push' > .git/hooks/pre-commit",
      "echo '[alias] x = push' >> .git/config",
      "echo '* -diff' > .git/info/attributes",
      `echo x > ${path.join(base, "planted")}`,
    ];
    const passed: string[] = [];
    for (const command of writes) {
      const result = await check(command);
      if (result.passed) passed.push(`${command}: ${result.output}`);
    }
    recordFigure({
      name: "commands of otto's work writing git's hooks, config or info, or outside their tree",
      tried: writes.length,
      through: passed.length,
    });
    expect(passed).toEqual([]);
    expect(fs.existsSync(path.join(repo, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(fs.readFileSync(path.join(repo, ".git", "config"), "utf8")).not.toContain("alias");
    expect(fs.existsSync(path.join(base, "planted"))).toBe(false);
    // The home inside is an empty throwaway folder: a write there succeeds and leaves nothing.
    expect(await check(`echo x > ${path.join(home, "planted")}`)).toMatchObject({ passed: true });
    expect(fs.existsSync(path.join(home, "planted"))).toBe(false);
    const ok = await check("echo built > out.txt && git status --short");
    expect(ok).toMatchObject({ passed: true });
    expect(ok.output).toContain("?? out.txt");
    expect(fs.readFileSync(path.join(repo, "out.txt"), "utf8")).toBe("built\n");
  });

  it("a check sees no forge token and none of the user's other processes", async () => {
    const result = await check('echo "token=[$GITHUB_TOKEN]"; ps -e -o comm= | sort -u | tr "\\n" " "');
    expect(result.output).toContain("token=[]");
    expect(result.output).not.toMatch(/node|vitest|esbuild/);
  });

  it("a timed-out check is killed with everything it started", async () => {
    const tag = `${process.pid}${Date.now() % 1000}`;
    const result = await runCheck(`sleep 3${tag} & wait`, { cwd: repo, timeoutMs: 1_000, env, sandbox: "required" });
    expect(result).toMatchObject({ passed: false, timedOut: true });
    await new Promise((r) => setTimeout(r, 300));
    const left = fs
      .readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes(`sleep\u00003${tag}`);
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  });
});

describe("sandbox required without a sandbox", () => {
  it("refuses to run the check and says what to do", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "otto-nosandbox-"));
    // A PATH with git and no bwrap.
    const bin = path.join(cwd, "bin");
    fs.mkdirSync(bin);
    fs.symlinkSync(execFileSync("/bin/sh", ["-c", "command -v git"], { encoding: "utf8" }).trim(), path.join(bin, "git"));
    const env = { ...process.env, PATH: bin };
    await expect(
      runCheck("true", { cwd, timeoutMs: 5_000, env, sandbox: process.platform === "linux" ? "required" : "off" }),
    ).rejects.toThrow(process.platform === "linux" ? /sandbox: "required".*bubblewrap/s : /never/);
    fs.rmSync(cwd, { recursive: true, force: true });
  });
});
