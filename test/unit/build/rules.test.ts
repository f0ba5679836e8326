import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildRules } from "../../../src/build/rules.ts";

const rule = (id: string, text: string, scope: string) =>
  `## ${id}\n\n${text}\n\n- status: accepted\n- scope: \`${scope}\`\n- seen: 1\n- first_seen: 2026-11-01\n- last_seen: 2026-11-01\n`;

const task = (n: number, status: string, file: string) =>
  `## Task ${n}: T${n}\n- **id**: task-00${n}\n- **status**: ${status}\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: T${n}.\n- **files**: ["${file}"]\n`;

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "otto-build-rules-"));
  await fs.mkdir(path.join(root, ".otto", "specs", "greet"), { recursive: true });
  await fs.writeFile(
    path.join(root, ".otto", "rules.md"),
    `# Team rules\n\n${rule("r-000001", "Use logger.info.", "src/**")}\n${rule("r-000002", "British English.", "docs/**")}`,
  );
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("build mode's rules", () => {
  const env = () => ({ HOME: root, XDG_CONFIG_HOME: path.join(root, "cfg"), XDG_DATA_HOME: path.join(root, "data") });

  it("gives the builder the rules in scope of the open tasks' files; every rule when no task lists files", async () => {
    const tasks = path.join(root, ".otto", "specs", "greet", "tasks.md");
    await fs.writeFile(tasks, `# Tasks\n\n${task(1, "pending", "src/a.ts")}\n${task(2, "completed", "docs/a.md")}`);
    const spec = await buildRules(root, { kind: "spec", name: "greet" }, env(), () => undefined);
    expect(spec).toContain("[r-000001]");
    expect(spec).not.toContain("r-000002");
    const openspec = await buildRules(root, { kind: "openspec", name: "change" }, env(), () => undefined);
    expect(openspec).toContain("[r-000001]");
    expect(openspec).toContain("[r-000002]");
  });
});
