import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { Env } from "../../../src/core/index.ts";

/** A throwaway home (XDG_CONFIG_HOME inside it) and a git repo, removed after each test. */
export interface Sandbox {
  root: string;
  home: string;
  repo: string;
  env: Env;
  userFile: string;
  repoFile: string;
  write(file: string, text: string): Promise<void>;
  read(file: string): Promise<string>;
}

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

export async function sandbox(): Promise<Sandbox> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "otto-config-")));
  created.push(root);
  const home = path.join(root, "home");
  const repo = path.join(root, "repo");
  await fs.mkdir(path.join(repo, ".git"), { recursive: true });
  await fs.mkdir(home, { recursive: true });
  const env: Env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share") };
  return {
    root,
    home,
    repo,
    env,
    userFile: path.join(home, ".config", "otto", "otto.jsonc"),
    repoFile: path.join(repo, ".otto", "otto.jsonc"),
    async write(file, text) {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text);
    },
    read: (file) => fs.readFile(file, "utf8"),
  };
}
