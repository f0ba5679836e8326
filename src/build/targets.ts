import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import { listSpecs, resolveSpec } from "../spec/index.ts";
import { buildOrder } from "./order.ts";
import type { BuildTarget } from "./state.ts";
import { parseCheckboxTasks } from "./openspec-tasks.ts";
import { openspecDir } from "./task-source.ts";

export interface TargetFlags {
  spec?: string;
  all?: boolean;
  openspec?: string;
}

/** The specs `--all` builds: those with a tasks.md and work left, numeric prefixes first, then by name. */
export function incompleteSpecs(repoRoot: string): string[] {
  const open = listSpecs(repoRoot).filter((s) => s.tasks && s.tasks.byStatus.completed + s.tasks.byStatus.skipped < s.tasks.total);
  return buildOrder(open.map((s) => s.slug));
}

/**
 * The active OpenSpec changes with work left (`openspec/changes/<name>/tasks.md` with an open
 * checkbox; `changes/archive` holds finished ones), by name. None without an `openspec/` folder.
 */
export function incompleteChanges(repoRoot: string): string[] {
  return activeChanges(repoRoot)
    .filter((c) => c.done < c.total)
    .map((c) => c.name);
}

/** Every active OpenSpec change that has a tasks.md, with its checkbox counts, by name. */
export function activeChanges(repoRoot: string): Array<{ name: string; done: number; total: number }> {
  const dir = path.join(repoRoot, "openspec", "changes");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== "archive" && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(e.name))
    .map((e) => e.name)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name, "tasks.md");
      if (!fs.existsSync(file)) return [];
      const tasks = parseCheckboxTasks(fs.readFileSync(file, "utf8"));
      return [{ name, done: tasks.filter((t) => t.done).length, total: tasks.length }];
    });
}

/** What one `/otto-build` builds, from its flags (one of --spec, --all, --openspec; none: the only spec). */
export function resolveTargets(repoRoot: string, flags: TargetFlags): BuildTarget[] {
  const given = [flags.spec !== undefined, flags.all === true, flags.openspec !== undefined].filter(Boolean).length;
  if (given > 1)
    throw new OttoError("usage", "Use one of --spec, --all and --openspec.", "/otto-build [--spec <slug> | --all | --openspec <change>]");
  if (flags.openspec !== undefined) {
    const dir = openspecDir(repoRoot, flags.openspec);
    if (!fs.existsSync(path.join(dir, "tasks.md"))) {
      throw new OttoError(
        "change_not_found",
        `No OpenSpec change '${flags.openspec}' with a tasks.md in ${path.relative(repoRoot, dir)}.`,
        "Run `openspec list` to see the changes",
      );
    }
    return [{ kind: "openspec", name: flags.openspec }];
  }
  if (flags.all) {
    // otto's specs first (in build order), then the OpenSpec changes with open tasks.
    const targets: BuildTarget[] = [
      ...incompleteSpecs(repoRoot).map((name) => ({ kind: "spec" as const, name })),
      ...incompleteChanges(repoRoot).map((name) => ({ kind: "openspec" as const, name })),
    ];
    if (targets.length === 0)
      throw new OttoError("nothing_to_build", "Every spec with a tasks.md, and every OpenSpec change, is complete.", "/otto-spec list");
    return targets;
  }
  return [{ kind: "spec", name: resolveSpec(listSpecs(repoRoot), flags.spec) }];
}

/** `--spec demo` or `--openspec add-auth`: how a command names the target. */
export function targetFlag(target: BuildTarget): string {
  return target.kind === "openspec" ? `--openspec ${target.name}` : `--spec ${target.name}`;
}
