import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configViews, withoutCredentials } from "../../../src/sandbox/git-config-view.ts";
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
