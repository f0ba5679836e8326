import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configViews, includedFiles, withoutCredentials } from "../../../src/sandbox/git-config-view.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * A checkout's `.git/config` may hold a token (a remote URL with one, an `http.extraheader`, a
 * `credential` section): the sandbox shows a copy without it.
 */

const WITH_CREDENTIALS = [
  "[core]",
  "\tbare = false",
  '[remote "origin"]',
  "\turl = https://x-access-token:ghp_secret123@github.com/o/r.git",
  "\tpushurl = http://user@example.com/o/r.git",
  '[http "https://github.com/"]',
  "\textraheader = AUTHORIZATION: basic c2VjcmV0",
  "  ExtraHeader=Bearer other",
  "[credential]",
  "\thelper = store --file /home/u/.git-credentials",
  "\tusername = u",
  '[ Credential "https://dev.azure.com"]',
  "\thelper = manager",
  '[branch "main"]',
  "\tremote = origin",
  "",
].join("\n");

describe("withoutCredentials", () => {
  it("drops the userinfo of URLs, extraheader lines and credential sections; keeps everything else as it was", () => {
    expect(withoutCredentials(WITH_CREDENTIALS)).toBe(
      [
        "[core]",
        "\tbare = false",
        '[remote "origin"]',
        "\turl = https://github.com/o/r.git",
        "\tpushurl = http://example.com/o/r.git",
        '[http "https://github.com/"]',
        '[branch "main"]',
        "\tremote = origin",
        "",
      ].join("\n"),
    );
  });

  it("leaves a config without credentials unchanged, other schemes and addresses included", () => {
    const text =
      '[remote "origin"]\n\turl = git@github.com:o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[user]\n\temail = a@b.c\n';
    expect(withoutCredentials(text)).toBe(text);
  });

  it("a section is a line that starts with '[' (after blanks), an extraheader a key of that name: not words inside a value", () => {
    const text = [
      "[core]",
      "\tcomment = see [credential] in the docs",
      "\tbare = false",
      "\turl = https://h/o/r?extraheader=x",
      "  [credential]",
      "\thelper = store",
      "[user]",
      "\tname = n",
    ].join("\n");
    expect(withoutCredentials(text)).toBe(
      [
        "[core]",
        "\tcomment = see [credential] in the docs",
        "\tbare = false",
        "\turl = https://h/o/r?extraheader=x",
        "[user]",
        "\tname = n",
      ].join("\n"),
    );
  });

  it("every URL on a line loses its userinfo, whatever its case", () => {
    expect(withoutCredentials("\turl = HTTPS://a:b@h/x HTTP://c@d/y")).toBe("\turl = HTTPS://h/x HTTP://d/y");
  });
});

function gitDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-config-view-"));
  removeAfterTest(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("configViews", () => {
  it("copies each config file with a credential, without it, private to the user, under otto's data folder", () => {
    const dir = gitDir({ config: WITH_CREDENTIALS, "config.worktree": "[extensions]\n\tworktreeConfig = true\n" });
    const data = gitDir({});
    const views = configViews([dir], { HOME: "/nonexistent", XDG_DATA_HOME: data });
    expect(views.map((v) => v.file)).toEqual([path.join(dir, "config")]);
    const copy = views[0]!.copy;
    expect(path.dirname(copy)).toBe(path.join(data, "otto", "sandbox"));
    expect(path.basename(copy)).toMatch(/^git-config-[0-9a-f]{16}$/);
    expect(fs.readFileSync(copy, "utf8")).toBe(withoutCredentials(WITH_CREDENTIALS));
    expect(fs.statSync(copy).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(copy)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(copy))).toEqual([path.basename(copy)]);
  });

  it("a worktree's config.worktree too, and every git directory given", () => {
    const main = gitDir({ config: "[core]\n\tbare = false\n" });
    const worktree = gitDir({ "config.worktree": "[credential]\n\thelper = store\n" });
    const data = gitDir({});
    const views = configViews([worktree, main], { XDG_DATA_HOME: data });
    expect(views.map((v) => v.file)).toEqual([path.join(worktree, "config.worktree")]);
    expect(path.basename(views[0]!.copy)).toMatch(/^git-config\.worktree-[0-9a-f]{16}$/);
    expect(fs.readFileSync(views[0]!.copy, "utf8")).toBe("");
  });

  it("the same clean text is one copy, named by its content and not written again; different text, another copy", () => {
    const data = gitDir({});
    const a = configViews([gitDir({ config: WITH_CREDENTIALS })], { XDG_DATA_HOME: data });
    fs.writeFileSync(a[0]!.copy, "left as it was");
    const b = configViews([gitDir({ config: WITH_CREDENTIALS })], { XDG_DATA_HOME: data });
    expect(b[0]!.copy).toBe(a[0]!.copy);
    expect(fs.readFileSync(b[0]!.copy, "utf8")).toBe("left as it was");
    const c = configViews([gitDir({ config: `${WITH_CREDENTIALS}[user]\n\tname = x\n` })], { XDG_DATA_HOME: data });
    expect(c[0]!.copy).not.toBe(a[0]!.copy);
  });

  it("nothing for a git directory without config files, a config that is a link or a folder", () => {
    const data = gitDir({});
    const target = gitDir({ config: WITH_CREDENTIALS });
    const linked = gitDir({});
    fs.symlinkSync(path.join(target, "config"), path.join(linked, "config"));
    fs.mkdirSync(path.join(linked, "config.worktree"));
    expect(configViews([gitDir({}), linked], { XDG_DATA_HOME: data })).toEqual([]);
    expect(fs.existsSync(path.join(data, "otto"))).toBe(false);
  });
});

describe("includedFiles", () => {
  it("include.path and every includeIf's path, quoted or not, comments dropped; relative to the including file's folder, `~` the home; nothing from other sections or keys", () => {
    const text = [
      "[include]",
      "\tpath = extra.config",
      '  PATH = "quoted dir/x.config" ; a comment',
      '[includeIf "gitdir:/w/"]',
      "\tpath = ~/work.config # a comment",
      "\tpath = ~",
      "\tpath = ~user/other.config",
      '[ IncludeIf "onbranch:main"]',
      "\tpath=/abs/branch.config",
      "\tpath =   ",
      "[core]",
      "\tpath = /not/an/include",
      "[includes]",
      "\tpath = /not/either",
      "[include]",
      "\tpathx = /no",
      "\t# path = /commented",
      "\tpath = last.config",
    ].join("\n");
    expect(includedFiles(text, "/g/.git/config", "/home/u")).toEqual([
      "/g/.git/extra.config",
      "/g/.git/quoted dir/x.config",
      "/home/u/work.config",
      "/home/u",
      "/g/.git/~user/other.config",
      "/abs/branch.config",
      "/g/.git/last.config",
    ]);
    expect(includedFiles("[core]\n\tbare = false\n", "/g/config", "/h")).toEqual([]);
    // A key before any section belongs to none.
    expect(includedFiles("\tpath = /before\n[include]\n\tpath = /after\n", "/g/config", "/h")).toEqual(["/after"]);
    // Quoted, the blanks at its ends are the path's (git keeps them); unquoted, they are not.
    expect(includedFiles('[include]\n\tpath = " spaced.config "\n\tpath =   bare.config   \n', "/g/config", "/h")).toEqual([
      "/g/ spaced.config ",
      "/g/bare.config",
    ]);
  });
});

describe("configViews: included files", () => {
  it("a file a config includes (relative, or in the home) that holds a credential gets its copy; one without, a folder, a missing file, a cycle: none", () => {
    const data = gitDir({});
    const home = gitDir({ "home.config": "[credential]\n\thelper = store\n" });
    const elsewhere = gitDir({
      "creds.config": WITH_CREDENTIALS,
      "plain.config": "[user]\n\tname = x\n",
      "loop.config": "[include]\n\tpath = loop.config\n",
    });
    fs.mkdirSync(path.join(elsewhere, "folder.config"));
    // A FIFO would never end a read.
    execFileSync("mkfifo", [path.join(elsewhere, "fifo.config")]);
    const dir = gitDir({
      config: [
        "[core]",
        "\tbare = false",
        "[include]",
        `\tpath = ../${path.basename(elsewhere)}/creds.config`,
        `\tpath = ${elsewhere}/plain.config`,
        `\tpath = ${elsewhere}/folder.config`,
        `\tpath = ${elsewhere}/fifo.config`,
        `\tpath = ${elsewhere}/missing.config`,
        `\tpath = ${elsewhere}/loop.config`,
        '[includeIf "gitdir:/x/"]',
        "\tpath = ~/home.config",
        "",
      ].join("\n"),
    });
    const views = configViews([dir], { HOME: home, XDG_DATA_HOME: data });
    expect(views.map((v) => v.file)).toEqual([path.join(elsewhere, "creds.config"), path.join(home, "home.config")]);
    expect(fs.readFileSync(views[0]!.copy, "utf8")).toBe(withoutCredentials(WITH_CREDENTIALS));
    expect(path.basename(views[1]!.copy)).toMatch(/^git-home\.config-[0-9a-f]{16}$/);
  });

  it("includes within includes, ten deep as git reads them, each file once", () => {
    const data = gitDir({});
    const chain = gitDir({});
    // config includes 1.config, which includes 2.config, … 11.config: 10 is the last git reads.
    for (let i = 1; i <= 11; i++)
      fs.writeFileSync(
        path.join(chain, `${i}.config`),
        `[credential]\n\thelper = h${i}\n[include]\n\tpath = ${i + 1}.config\n\tpath = 1.config\n`,
      );
    const dir = gitDir({ config: `[include]\n\tpath = ${chain}/1.config\n\tpath = ${chain}/1.config\n` });
    const views = configViews([dir], { XDG_DATA_HOME: data });
    expect(views.map((v) => path.basename(v.file))).toEqual([
      "10.config",
      "9.config",
      "8.config",
      "7.config",
      "6.config",
      "5.config",
      "4.config",
      "3.config",
      "2.config",
      "1.config",
    ]);
  });
});

describe("configViews: writable files and links", () => {
  it("the includes of a file the sandbox can write are not followed (the file itself still gets its copy); the git directory's own config's are", () => {
    const data = gitDir({});
    const home = gitDir({ ".gitconfig": "[credential]\n\thelper = store\n[sendemail]\n\tsmtppass = s3cret\n" });
    const tree = gitDir({ ".gitconfig": `[remote "x"]\n\turl = https://u:p@h/r\n[include]\n\tpath = ~/.gitconfig\n` });
    const dir = path.join(tree, ".git");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "config"), "[include]\n\tpath = ../.gitconfig\n\tpath = ~/.gitconfig\n");
    const env = { HOME: home, XDG_DATA_HOME: data };
    // From .git/config (read-only inside) ~/.gitconfig is followed; from the tree's .gitconfig it would be too, were the tree not writable.
    expect(configViews([dir], env, [tree]).map((v) => v.file)).toEqual([path.join(tree, ".gitconfig"), path.join(home, ".gitconfig")]);
    fs.writeFileSync(path.join(dir, "config"), "[include]\n\tpath = ../.gitconfig\n");
    expect(configViews([dir], env, [tree]).map((v) => v.file)).toEqual([path.join(tree, ".gitconfig")]);
    // A writable folder given besides the tree (otto.jsonc's allow_write).
    const dots = gitDir({ inc: "[include]\n\tpath = ~/.gitconfig\n[credential]\n\thelper = x\n" });
    fs.writeFileSync(path.join(dir, "config"), `[include]\n\tpath = ${dots}/inc\n`);
    expect(configViews([dir], env, [tree]).map((v) => v.file)).toEqual([path.join(home, ".gitconfig"), path.join(dots, "inc")]);
    expect(configViews([dir], env, [tree, dots]).map((v) => v.file)).toEqual([path.join(dots, "inc")]);
    // Without a list, the git directories are what the sandbox writes.
    expect(configViews([dir], env).map((v) => v.file)).toEqual([path.join(home, ".gitconfig"), path.join(dots, "inc")]);
  });

  it("an included file is named by its real path, and a link into a writable folder counts as that folder's", () => {
    const data = gitDir({});
    const home = gitDir({ ".gitconfig": "[credential]\n\thelper = store\n" });
    const tree = gitDir({ "real.config": "[include]\n\tpath = ~/.gitconfig\n[credential]\n\thelper = x\n" });
    const links = gitDir({});
    fs.symlinkSync(path.join(tree, "real.config"), path.join(links, "link.config"));
    const dir = gitDir({ config: `[include]\n\tpath = ${links}/link.config\n` });
    expect(configViews([dir], { HOME: home, XDG_DATA_HOME: data }, [tree]).map((v) => v.file)).toEqual([
      fs.realpathSync(path.join(tree, "real.config")),
    ]);
  });
});
