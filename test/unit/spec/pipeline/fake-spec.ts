import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "../../../../src/core/index.ts";
import { SessionRunner, type ModelRef } from "../../../../src/session/index.ts";
import type { SpecDeps } from "../../../../src/spec/index.ts";
import { FakeOpencode, type FakeTurn, type PromptCall } from "../../session/fake-opencode.ts";

/** No override folder: the builtin prompts only. */
export const ENV = { HOME: "/nonexistent-otto-home", XDG_CONFIG_HOME: "/nonexistent-otto-config" };
export const PRIMARY: ModelRef = { providerID: "acme", modelID: "primary-1" };
export const SECONDARY: ModelRef = { providerID: "acme", modelID: "secondary-1" };

/** Which prompt a call carries, from phrases of the builtin prompt files. */
export function kindOf(text: string): string {
  const kinds: Array<[string, string]> = [
    ["You are the requirements analyst", "requirements"],
    ["You are the technical researcher", "research"],
    ["You are the software architect", "design"],
    ["You are the technical lead planning", "tasks"],
    ["You are an independent reviewer", "review"],
    ["You wrote the artifact below", "refine"],
    ["otto checked it in code and found the problems below", "document-retry"],
    ["Your previous answer could not be used", "json-retry"],
    ["An open question was raised while working on a spec", "question-resolve"],
    ["Another model has proposed an answer", "question-validate"],
    ["The user has a request about this spec", "spec-run"],
  ];
  return kinds.find(([phrase]) => text.includes(phrase))?.[1] ?? "unknown";
}

export const doc = (body: string): string => `Notes.\nBEGIN_DOCUMENT\n${body}\nEND_DOCUMENT`;
export const envelope = (value: unknown): string => `BEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`;
export const approve = envelope({ verdict: "approve", summary: "fine", issues: [] });

export interface Call extends PromptCall {
  kind: string;
  text: string;
}

/** A temp repository folder, a fake OpenCode answering by prompt kind, and SpecDeps wired to both. */
export function fakeSpec(answer: (call: Call, calls: Call[]) => FakeTurn | undefined) {
  const repoRoot = fs.mkdtempSync(path.join(os.tmpdir(), "otto-spec-unit-"));
  fs.mkdirSync(path.join(repoRoot, ".git"));
  const calls: Call[] = [];
  const fake = new FakeOpencode((call) => {
    const text = call.body.parts[0]?.text ?? "";
    const entry: Call = { ...call, kind: kindOf(text), text };
    calls.push(entry);
    return answer(entry, calls) ?? (entry.kind === "review" ? { text: approve } : { text: `unscripted ${entry.kind}` });
  });
  const progress: string[] = [];
  // Sessions are deleted when closed, so remember how each was created.
  const created: Array<{ parentID?: string; title?: string; directory?: string }> = [];
  const create = fake.client.session.create.bind(fake.client.session);
  fake.client.session.create = (options) => {
    created.push({ parentID: options.body?.parentID, title: options.body?.title, directory: options.query?.directory });
    return create(options);
  };
  const runner = new SessionRunner({ client: fake.client, events: fake.events, log: silentLogger, env: ENV });
  const deps: SpecDeps = {
    runner,
    client: fake.client,
    repoRoot,
    parentID: "ses_parent",
    progress: (m) => progress.push(m),
    models: { primary: "acme/primary-1", secondary: "acme/secondary-1" },
    stageTimeoutMs: 5_000,
    once: new Set(),
    secrets: [] as string[],
    log: silentLogger,
    env: ENV,
    now: () => new Date("2026-02-06T12:00:00.000Z"),
    codebaseSummary: () => Promise.resolve("## Codebase summary\n\n- **Archetype:** CLI tool"),
  };
  const spec = (slug: string) => path.join(repoRoot, ".otto", "specs", slug);
  return {
    fake,
    deps,
    calls,
    created,
    progress,
    repoRoot,
    spec,
    write(slug: string, files: Record<string, string>) {
      fs.mkdirSync(spec(slug), { recursive: true });
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(spec(slug), name), text);
    },
    read: (slug: string, name: string) => fs.readFileSync(path.join(spec(slug), name), "utf8"),
    exists: (slug: string, name: string) => fs.existsSync(path.join(spec(slug), name)),
    history: (slug: string) => (fs.existsSync(path.join(spec(slug), "history")) ? fs.readdirSync(path.join(spec(slug), "history")) : []),
    cleanup: () => fs.rmSync(repoRoot, { recursive: true, force: true }),
  };
}

/** tasks.md text from compact rows: [id, status, group, deps, title]. */
export function tasksMd(rows: Array<[string, string, number, string[], string]>): string {
  const tasks = rows.map(
    ([id, status, group, deps, title], i) =>
      `## Task ${i + 1}: ${title}\n- **id**: ${id}\n- **status**: ${status}\n- **parallel_group**: ${group}\n- **depends_on**: [${deps.join(", ")}]\n- **description**: Do ${title.toLowerCase()}.\n- **files**: ["src/${id}.ts"]`,
  );
  return `# Tasks\n\n${tasks.join("\n\n")}\n`;
}

export const REQUIREMENTS = `# Requirements: Rate limiting

## Summary
Limit requests.

## Open Questions
- **Limit per key**: What is the default limit per API key? Why it matters: sizing. Assumed until answered: 100/min.
- **Storage**: Should counters live in Redis? Why it matters: deployment.
`;
