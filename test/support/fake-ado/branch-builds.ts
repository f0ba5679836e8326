import { randomUUID } from "node:crypto";
import type { AdoState, FakeBuild } from "./state.ts";

/*
 * Builds of a branch (the default branch's own CI, which the fix flow compares a PR's failure
 * with): answered by the fake's GET _apis/build/builds?branchName=refs/heads/<branch>, with a
 * timeline and a log like a PR's builds.
 */

export function buildOnBranch(
  state: AdoState,
  input: { branch?: string; name: string; result?: "succeeded" | "failed"; log?: string; definitionId?: number; sha?: string },
): FakeBuild {
  const failed = input.result === "failed";
  const build: FakeBuild = {
    id: state.nextId(),
    definition: { id: input.definitionId ?? 1, name: input.name },
    status: "completed",
    result: input.result ?? "succeeded",
    sourceBranch: `refs/heads/${input.branch ?? "main"}`,
    sourceVersion: input.sha ?? state.commit(),
    queueTime: state.time(),
    prId: 0,
  };
  state.builds.push(build);
  state.timelines.set(build.id, [
    { id: randomUUID(), name: "Checkout", result: "succeeded", logId: 1, issues: [] },
    {
      id: randomUUID(),
      name: input.name,
      result: failed ? "failed" : "succeeded",
      logId: 2,
      issues: failed ? ["Process completed with exit code 1."] : [],
    },
  ]);
  state.logs.set(`${build.id}/1`, "Syncing repository\n");
  state.logs.set(`${build.id}/2`, input.log ?? (failed ? `${input.name}: 1 failing\n` : `${input.name}: ok\n`));
  return build;
}
