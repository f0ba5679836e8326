import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { quoteEnvironment, quoteExec, renderUnit } from "../../../../src/pr/watch/systemd.ts";
import { useTempDir } from "../support.ts";

const tempDir = useTempDir();

/*
 * systemd's reading of a unit line, written from its documentation (systemd.syntax "Quoting",
 * systemd.unit "Specifiers", systemd.service "Command lines"), so a test can read back what otto
 * wrote: words split on blanks, double quotes, C escapes inside them, %% and (command lines only) $$.
 */
function systemdWords(value: string, commandLine: boolean): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === " ") i++;
    if (i >= value.length) break;
    let word = "";
    if (value[i] === '"') {
      i++;
      while (i < value.length && value[i] !== '"') {
        const c = value[i] ?? "";
        if (c === "\\") {
          const next = value[i + 1] ?? "";
          if (next === "x") {
            word += String.fromCharCode(parseInt(value.slice(i + 2, i + 4), 16));
            i += 4;
            continue;
          }
          word += ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[next] ?? next;
          i += 2;
          continue;
        }
        if (c === "%") {
          expect(value[i + 1], `lone % in ${value}`).toBe("%");
          word += "%";
          i += 2;
          continue;
        }
        if (c === "$") {
          if (commandLine) expect(value[i + 1], `lone $ in ${value}`).toBe("$");
          word += "$";
          i += commandLine ? 2 : 1;
          continue;
        }
        word += c;
        i++;
      }
      expect(value[i], `unterminated quote in ${value}`).toBe('"');
      i++;
    } else {
      while (i < value.length && value[i] !== " ") word += value[i++];
    }
    words.push(word);
  }
  return words;
}

const setting = (unit: string, key: string): string[] =>
  unit
    .split("\n")
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

const HOSTILE = [
  "/home/me/my projects/app",
  `/home/me/it's "quoted"/app`,
  "/home/me/100%/%h%n",
  "/home/me/$HOME/${USER}/$(id)/`id`",
  "/home/me/back\\slash\\t/app",
  "/home/me/semi;colon & amp | pipe",
  "/home/me/ünïcødé/🦦",
];

describe("systemd unit quoting", () => {
  it.each(HOSTILE)("ExecStart, Environment= and WorkingDirectory= read back as written: %s", (dir) => {
    const opencode = path.join(dir, "bin", "opencode");
    const unit = renderUnit({
      opencode,
      directory: dir,
      port: 4097,
      env: { PATH: `${dir}/bin:/usr/bin`, XDG_DATA_HOME: `${dir}/data` },
      environmentFile: `${dir}/data/otto/watch-server.env`,
    });
    // Every setting stays on one line.
    expect(unit.split("\n").every((l) => l === "" || /^\[|^[A-Za-z]+=/.test(l))).toBe(true);
    expect(systemdWords(setting(unit, "ExecStart")[0] ?? "", true)).toEqual([
      opencode,
      "serve",
      "--hostname",
      "127.0.0.1",
      "--port",
      "4097",
    ]);
    const env = setting(unit, "Environment").flatMap((v) => systemdWords(v, false));
    expect(env).toContain(`PATH=${dir}/bin:/usr/bin`);
    expect(env).toContain(`XDG_DATA_HOME=${dir}/data`);
    expect(setting(unit, "WorkingDirectory")[0]?.replace(/%%/g, "%")).toBe(dir);
    expect(setting(unit, "EnvironmentFile")[0]?.replace(/%%/g, "%")).toBe(`${dir}/data/otto/watch-server.env`);
  });

  it.each(HOSTILE)("the ExecStartPost script passes the directory to curl intact under a real sh: %s", (dir) => {
    const unit = renderUnit({
      opencode: "/opt/opencode",
      directory: dir,
      port: 4097,
      env: {},
      environmentFile: "/home/me/.local/share/otto/watch-server.env",
    });
    const words = systemdWords(setting(unit, "ExecStartPost")[0] ?? "", true);
    expect(words.slice(0, 2)).toEqual(["-/bin/sh", "-c"]);
    const bin = tempDir();
    const out = path.join(bin, "url.txt");
    fs.writeFileSync(path.join(bin, "curl"), `#!/bin/sh\nfor a; do last="$a"; done\nprintf '%s' "$last" > '${out}'\n`, { mode: 0o755 });
    execFileSync("/bin/sh", ["-c", words[2] ?? ""], { env: { PATH: `${bin}:/usr/bin:/bin` } });
    const url = new URL(fs.readFileSync(out, "utf8"));
    expect(url.origin).toBe("http://127.0.0.1:4097");
    expect(url.searchParams.get("directory")).toBe(dir);
  });

  it("quotes control characters as C escapes, never as raw line breaks", () => {
    expect(quoteExec("/a\nb\tc\x01")).toBe('"/a\\nb\\tc\\x01"');
    expect(systemdWords(quoteExec("/a\nb\tc\x01$"), true)).toEqual(["/a\nb\tc\x01$"]);
    expect(systemdWords(quoteEnvironment("PATH", "/a\nb$c"), false)).toEqual(["PATH=/a\nb$c"]);
  });

  it("keeps a $ single in Environment= (no expansion there) and doubles it on command lines", () => {
    expect(quoteEnvironment("PATH", "/x/$y")).toBe('"PATH=/x/$y"');
    expect(quoteExec("/x/$y")).toBe('"/x/$$y"');
  });

  it.each(["/home/me/line\nbreak", "/home/me/trailing ", "/home/me/trailing\\", "relative/dir"])(
    "refuses a WorkingDirectory systemd cannot hold: %j",
    (dir) => {
      expect(() =>
        renderUnit({
          opencode: "/opt/opencode",
          directory: dir,
          port: 4097,
          env: {},
          environmentFile: "/home/me/.local/share/otto/watch-server.env",
        }),
      ).toThrow(/cannot be written as a systemd WorkingDirectory/);
    },
  );
});
