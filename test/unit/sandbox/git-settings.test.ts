import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitSettingsFile, userGitSettings } from "../../../src/sandbox/git-settings.ts";
import { gitEnv, removeAfterTest } from "../../support/git.ts";

/*
 * The user's git settings as the sandbox shows them: the keys that shape a commit, never a
 * credential helper, an http header or a URL rewrite (developer-home.test.ts shows them inside).
 */

function home(gitconfig: string, extra: Record<string, string> = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-settings-")));
  removeAfterTest(dir);
  fs.writeFileSync(path.join(dir, ".gitconfig"), gitconfig);
  for (const [rel, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return { dir, env: { HOME: dir, PATH: process.env.PATH ?? "/usr/bin:/bin" } };
}

const USER = [
  "[user]",
  "\tname = Ada L",
  "\temail = ada@example.com",
  "[credential]",
  "\thelper = store",
  '[http "https://github.com/"]',
  "\textraheader = AUTHORIZATION: basic c2VjcmV0",
  '[url "https://x-access-token:tok@github.com/"]',
  "\tinsteadOf = https://github.com/",
  "[core]",
  "\texcludesfile = ~/my-ignore",
  "\tattributesfile = ~/missing-attributes",
  "\tautocrlf = input",
  "\tsymlinks",
  "\thooksPath = ~/hooks",
  "\teditor = vim",
  '[filter "lfs"]',
  "\tclean = git-lfs clean -- %f",
  "\trequired = true",
  "[init]",
  "\tdefaultBranch = trunk",
  "[commit]",
  "\tgpgSign = yes",
  "[i18n]",
  "\tcommitEncoding = utf-8",
  "[safe]",
  "\tdirectory = /srv/repo",
  "[alias]",
  "\tship = push",
  "",
].join("\n");

describe("userGitSettings", () => {
  it("keeps the keys that shape a commit, names the ignore file by its absolute path, leaves credentials and the rest out", () => {
    const h = home(USER, { "my-ignore": "*.log\n" });
    const settings = userGitSettings(h.env);
    expect(settings.text).toBe(
      [
        '[user]\n\tname = "Ada L"\n',
        '[user]\n\temail = "ada@example.com"\n',
        '[core]\n\tautocrlf = "input"\n',
        '[core]\n\tsymlinks = "true"\n',
        '[core]\n\thookspath = "~/hooks"\n',
        '[filter "lfs"]\n\tclean = "git-lfs clean -- %f"\n',
        '[filter "lfs"]\n\trequired = "true"\n',
        '[init]\n\tdefaultbranch = "trunk"\n',
        '[i18n]\n\tcommitencoding = "utf-8"\n',
        '[safe]\n\tdirectory = "/srv/repo"\n',
        `[core]\n\texcludesfile = "${path.join(h.dir, "my-ignore")}"\n`,
      ].join(""),
    );
    expect(settings.files).toEqual([path.join(h.dir, "my-ignore")]);
    expect(settings.signs).toBe(true);
    expect(settings.text).not.toMatch(/store|extraheader|insteadof|tok@|vim|ship/i);
  });

  it("the XDG ignore and attributes files when the config names none; signing off unless asked", () => {
    const h = home("[user]\n\tname = n\n[commit]\n\tgpgsign = false\n", {
      ".config/git/ignore": "x\n",
      ".config/git/attributes": "* text\n",
    });
    const settings = userGitSettings(h.env);
    const ignore = path.join(h.dir, ".config", "git", "ignore");
    const attributes = path.join(h.dir, ".config", "git", "attributes");
    expect(settings.files).toEqual([ignore, attributes]);
    expect(settings.text).toBe(`[user]\n\tname = "n"\n[core]\n\texcludesfile = "${ignore}"\n[core]\n\tattributesfile = "${attributes}"\n`);
    expect(settings.signs).toBe(false);
    expect(userGitSettings(home("[commit]\n\tgpgsign\n").env).signs).toBe(true);
    expect(userGitSettings(home("").env)).toEqual({ text: "", files: [], signs: false });
  });

  it("keeps a key only when its whole name is one of the kept ones; signing only for a true value", () => {
    const near = [
      '[foo "user"]\n\tname = x',
      "[user]\n\tnames = x",
      '[x "init"]\n\tdefaultBranch = x',
      "[init]\n\tdefaultBranchx = x",
      '[x "i18n"]\n\tcommitEncoding = x',
      "[i18n]\n\tcommitEncodingx = x",
      '[x "filter.lfs"]\n\tclean = x',
      '[filter "lfs"]\n\tcleanx = x',
      '[x "safe"]\n\tdirectory = x',
      "[safe]\n\tdirectoryx = x",
      '[x "core"]\n\tautocrlf = x',
      "[core]\n\tautocrlfx = x",
      "[commit]\n\tgpgSign = untrue",
      "",
    ].join("\n");
    expect(userGitSettings(home(near).env)).toEqual({ text: "", files: [], signs: false });
    expect(userGitSettings(home("[commit]\n\tgpgSign = yesno\n").env).signs).toBe(false);
    expect(userGitSettings(home("[user]\n\tname = a\\nb\n").env).text).toBe('[user]\n\tname = "a\\nb"\n');
  });

  it("quotes values as a config file must: backslashes, quotes, tabs", () => {
    const h = home('[user]\n\tname = "a\\\\b \\"q\\" \\tt"\n[filter "we\\"ird"]\n\tsmudge = x\n');
    expect(userGitSettings(h.env).text).toBe('[user]\n\tname = "a\\\\b \\"q\\" \\tt"\n[filter "we\\"ird"]\n\tsmudge = "x"\n');
  });

  it("GIT_CONFIG_GLOBAL names the file; includeIf gitdir: applies for the tree's git directory only", () => {
    const h = home("[user]\n\tname = ignored\n", {
      "other.gitconfig": '[user]\n\tname = other\n[includeIf "gitdir:~/work/"]\n\tpath = ~/work.gitconfig\n',
      "work.gitconfig": "[user]\n\temail = work@example.com\n",
    });
    fs.mkdirSync(path.join(h.dir, "work", "repo"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: path.join(h.dir, "work", "repo"), env: gitEnv() });
    const env = {
      ...h.env,
      GIT_CONFIG_GLOBAL: path.join(h.dir, "other.gitconfig"),
      GIT_DIR: "/elsewhere",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_VALUE_0: "injected",
    };
    expect(userGitSettings(env).text).toBe('[user]\n\tname = "other"\n');
    expect(userGitSettings(env, path.join(h.dir, "work", "repo", ".git")).text).toBe(
      '[user]\n\tname = "other"\n[user]\n\temail = "work@example.com"\n',
    );
  });

  it("an edited ~/.gitconfig is read again", () => {
    const h = home("[user]\n\tname = first\n");
    const at = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(h.dir, ".gitconfig"), at, at);
    expect(userGitSettings(h.env).text).toContain('"first"');
    fs.writeFileSync(path.join(h.dir, ".gitconfig"), "[user]\n\tname = second\n");
    fs.utimesSync(path.join(h.dir, ".gitconfig"), at, at);
    expect(userGitSettings(h.env).text).toContain('"first"');
    fs.utimesSync(path.join(h.dir, ".gitconfig"), new Date(), new Date());
    expect(userGitSettings(h.env).text).toContain('"second"');
  });

  it("an edited $XDG_CONFIG_HOME/git/config is read again too", () => {
    const h = home("", { ".config/git/config": "[user]\n\tname = first\n" });
    // No ~/.gitconfig: git 2.39 reads the XDG file for --global only then.
    fs.rmSync(path.join(h.dir, ".gitconfig"));
    const file = path.join(h.dir, ".config", "git", "config");
    const at = new Date(Date.now() - 60_000);
    fs.utimesSync(file, at, at);
    expect(userGitSettings(h.env).text).toBe('[user]\n\tname = "first"\n');
    fs.writeFileSync(file, "[user]\n\tname = second\n");
    fs.utimesSync(file, new Date(), new Date());
    expect(userGitSettings(h.env).text).toBe('[user]\n\tname = "second"\n');
  });

  it("an ignore file named by an absolute path outside the home is shown at that path", () => {
    const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-settings-ignore-")));
    removeAfterTest(elsewhere);
    const ignore = path.join(elsewhere, "global-ignore");
    fs.writeFileSync(ignore, "*.log\n");
    const settings = userGitSettings(home(`[core]\n\texcludesfile = ${ignore}\n`).env);
    expect(settings.files).toEqual([ignore]);
    expect(settings.text).toBe(`[core]\n\texcludesfile = "${ignore}"\n`);
  });
});

describe("gitSettingsFile", () => {
  it("written once under otto's data folder, named by its content, private to the user", () => {
    const h = home("");
    const env = { HOME: h.dir };
    const settings = { text: '[user]\n\tname = "n"\n', files: [], signs: false };
    const file = gitSettingsFile(env, settings);
    expect(path.dirname(file)).toBe(path.join(h.dir, ".local", "share", "otto", "sandbox"));
    expect(path.basename(file)).toMatch(/^gitconfig-[0-9a-f]{16}$/);
    expect(fs.readFileSync(file, "utf8")).toBe(settings.text);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    fs.writeFileSync(file, "kept");
    expect(gitSettingsFile(env, settings)).toBe(file);
    expect(fs.readFileSync(file, "utf8")).toBe("kept");
    expect(gitSettingsFile(env, { ...settings, text: "" })).not.toBe(file);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
