import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { installUnit } from "../../../../src/pr/watch/install.ts";
import { renderUnit } from "../../../../src/pr/watch/systemd.ts";
import { useTempDir } from "../support.ts";

const tempDir = useTempDir();

/** A `systemctl` on PATH that appends its argv to a file, and fails `enable` when told to. */
function fakeSystemctl(failEnable = false): { bin: string; calls: () => string[] } {
  const dir = tempDir();
  const log = path.join(dir, "calls.txt");
  const fail = failEnable
    ? `case "$*" in *enable*) echo "Failed to enable unit: Unit file otto-watch.service does not exist." >&2; exit 1;; esac\n`
    : "";
  fs.writeFileSync(path.join(dir, "systemctl"), `#!/bin/sh\necho "$*" >> '${log}'\n${fail}exit 0\n`, { mode: 0o755 });
  return { bin: dir, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []) };
}

const base = {
  opencode: "/opt/opencode",
  directory: "/home/me/src/app",
  port: 4097,
  environmentFile: "/home/me/.local/share/otto/watch-server.env",
};

describe("watch install", () => {
  it("writes the unit under $XDG_CONFIG_HOME/systemd/user and only says how to enable it", async () => {
    const config = tempDir();
    const systemctl = fakeSystemctl();
    const env = { XDG_CONFIG_HOME: config, PATH: `${systemctl.bin}:${process.env.PATH ?? ""}`, GITHUB_TOKEN: "ghp_secret_value" };
    const output = await installUnit({ ...base, env, enable: false });
    const file = path.join(config, "systemd", "user", "otto-watch.service");
    expect(fs.readFileSync(file, "utf8")).toBe(renderUnit({ ...base, env }));
    expect(fs.readFileSync(file, "utf8")).not.toContain("ghp_secret_value");
    expect(output).toContain(
      `Wrote ${file}: opencode serve on 127.0.0.1:4097 in /home/me/src/app, with the PR watcher; its password comes from /home/me/.local/share/otto/watch-server.env (mode 0600).`,
    );
    expect(output).toContain("  systemctl --user enable --now otto-watch.service");
    expect(systemctl.calls()).toEqual([]);
  });

  it("falls back to ~/.config without XDG_CONFIG_HOME, and overwrites an older unit", async () => {
    const home = tempDir();
    const file = path.join(home, ".config", "systemd", "user", "otto-watch.service");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "[Service]\nExecStart=/old/opencode serve\n");
    await installUnit({ ...base, env: { HOME: home }, enable: false });
    expect(fs.readFileSync(file, "utf8")).toContain('ExecStart="/opt/opencode" serve --hostname 127.0.0.1 --port 4097');
  });

  it("--enable reloads systemd and enables the unit now, reporting each command", async () => {
    const config = tempDir();
    const systemctl = fakeSystemctl();
    const output = await installUnit({
      ...base,
      env: { XDG_CONFIG_HOME: config, PATH: `${systemctl.bin}:${process.env.PATH ?? ""}` },
      enable: true,
    });
    expect(systemctl.calls()).toEqual(["--user daemon-reload", "--user enable --now otto-watch.service"]);
    expect(output).toContain("$ systemctl --user daemon-reload → ok");
    expect(output).toContain("$ systemctl --user enable --now otto-watch.service → ok");
    expect(fs.existsSync(path.join(config, "systemd", "user", "otto-watch.service"))).toBe(true);
  });

  it("--enable reports a failing systemctl with its message instead of throwing", async () => {
    const systemctl = fakeSystemctl(true);
    const output = await installUnit({
      ...base,
      env: { XDG_CONFIG_HOME: tempDir(), PATH: `${systemctl.bin}:${process.env.PATH ?? ""}` },
      enable: true,
    });
    expect(output).toContain("$ systemctl --user daemon-reload → ok");
    expect(output).toContain(
      "$ systemctl --user enable --now otto-watch.service → failed (1): Failed to enable unit: Unit file otto-watch.service does not exist.",
    );
  });
});
