import fs from "node:fs/promises";
import path from "node:path";
import { xdgPaths } from "../../core/index.ts";
import { runProcess } from "../../core/run.ts";
import { UNIT_NAME, renderUnit } from "./systemd.ts";

export interface InstallOptions {
  opencode: string;
  directory: string;
  port: number;
  env: Record<string, string | undefined>;
  /** The 0600 file with the server's credentials (server-auth.ts), read by the unit's EnvironmentFile=. */
  environmentFile: string;
  /** Also run systemctl --user daemon-reload and enable --now. */
  enable: boolean;
}

/** Writes `$XDG_CONFIG_HOME/systemd/user/otto-watch.service`; with `enable`, enables and starts it. */
export async function installUnit(options: InstallOptions): Promise<string> {
  const file = path.join(xdgPaths(options.env).config, "systemd", "user", UNIT_NAME);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, renderUnit(options));
  const commands = [`systemctl --user daemon-reload`, `systemctl --user enable --now ${UNIT_NAME}`];
  const lines = [
    `Wrote ${file}: opencode serve on 127.0.0.1:${options.port} in ${options.directory}, with the PR watcher; its password comes from ${options.environmentFile} (mode 0600).`,
  ];
  if (!options.enable) {
    lines.push(
      "Enable it with:",
      ...commands.map((c) => `  ${c}`),
      "Tokens come from otto.jsonc, or add another EnvironmentFile with systemctl --user edit otto-watch.",
    );
    return lines.join("\n");
  }
  for (const command of commands) {
    const [file0 = "systemctl", ...args] = command.split(" ");
    // options.env: the same environment the unit is rendered from (the runtime's), so PATH finds the same systemctl.
    const result = await runProcess(file0, args, { timeoutMs: 30_000, env: options.env });
    lines.push(
      `$ ${command} → ${result.exitCode === 0 ? "ok" : `failed (${String(result.exitCode ?? result.code)}): ${result.stderr.trim()}`}`,
    );
  }
  return lines.join("\n");
}
