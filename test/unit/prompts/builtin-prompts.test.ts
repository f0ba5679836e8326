import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDir, isOttoError, listAssetNames } from "../../../src/core/index.ts";
import { MARKERS, PROMPT_CONTRACTS, PROMPT_NAMES, loadPrompt, renderPrompt, type PromptName } from "../../../src/prompts/index.ts";
import { templateVariables } from "../../../src/prompts/template-variables.ts";

// No override folder: these tests see the builtins only.
const env = { HOME: "/nonexistent-otto-home", XDG_CONFIG_HOME: "/nonexistent-otto-config" };

function sample(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, `<<${n}>>`]));
}

function render(name: PromptName, vars: Record<string, unknown>): string {
  return renderPrompt(name, vars as never, { env });
}

/** The text between the lines BEGIN_JSON and END_JSON of a prompt body (the example it shows). */
function jsonExample(body: string): string | undefined {
  const match = new RegExp(`^${MARKERS.jsonBegin}$\\n([\\s\\S]*?)\\n^${MARKERS.jsonEnd}$`, "m").exec(body);
  return match?.[1];
}

describe("builtin prompt files", () => {
  it("exist for every prompt name, and no others", () => {
    expect(listAssetNames(builtinDir("prompts"))).toEqual([...PROMPT_NAMES].sort());
  });

  it("include the 14 core prompts and the two support prompts", () => {
    const required = [
      "requirements",
      "research",
      "design",
      "tasks",
      "review",
      "task-briefing",
      "phase-review",
      "external-assumptions",
      "domain-hardening",
      "documentation-alignment",
      "question-harvest",
      "question-resolve",
      "pr-review",
      "pr-comment-respond",
      "refine",
      "json-retry",
    ];
    expect(PROMPT_NAMES).toEqual(expect.arrayContaining(required));
  });
});

describe.each(PROMPT_NAMES.map((name) => [name]))("builtin prompt '%s'", (name) => {
  const prompt = loadPrompt(name, { env });
  const { variables, optional } = prompt.meta;

  it("loads from the package with valid frontmatter, stripped from the body", () => {
    expect(prompt.source).toBe("builtin");
    expect(prompt.file).toBe(path.join(builtinDir("prompts"), `${name}.md`));
    expect(prompt.meta.description.length).toBeGreaterThan(20);
    expect(prompt.body.startsWith("---")).toBe(false);
    expect(prompt.body).not.toMatch(/^(description|variables|optional):/m);
  });

  it("declares the same variables as PROMPT_CONTRACTS", () => {
    expect(variables).toEqual([...PROMPT_CONTRACTS[name].variables]);
    expect(optional).toEqual([...PROMPT_CONTRACTS[name].optional]);
    expect(new Set([...variables, ...optional]).size).toBe(variables.length + optional.length);
  });

  it("uses exactly its declared variables, optional ones only inside {{#if}}", () => {
    const uses = templateVariables(fs.readFileSync(prompt.file, "utf8").replace(/^---[\s\S]*?\n---\n/, ""));
    const used = new Set(uses.map((u) => u.name));
    expect([...used].sort()).toEqual([...variables, ...optional].sort());
    const unguardedOptional = uses.filter((u) => optional.includes(u.name) && !u.guarded);
    expect(unguardedOptional).toEqual([]);
  });

  it("renders with only its required variables", () => {
    const text = render(name, sample(variables));
    for (const v of variables) expect(text).toContain(`<<${v}>>`);
    for (const v of optional) expect(text).not.toContain(`<<${v}>>`);
    expect(text).not.toMatch(/\bundefined\b|\[object Object\]/);
    expect(text).not.toMatch(/\n{3,}/);
    expect(text).not.toMatch(/\{\{|\}\}/);
  });

  it("renders with all its variables", () => {
    const text = render(name, sample([...variables, ...optional]));
    for (const v of [...variables, ...optional]) expect(text).toContain(`<<${v}>>`);
    expect(text).not.toMatch(/\bundefined\b|\[object Object\]/);
    expect(text).not.toMatch(/\n{3,}/);
  });

  it.each(variables.map((v) => [v]))("fails with a typed error naming '%s' when it is missing", (missing) => {
    const vars = sample(variables.filter((v) => v !== missing));
    let caught: unknown;
    try {
      render(name, vars);
    } catch (error) {
      caught = error;
    }
    expect(isOttoError(caught)).toBe(true);
    if (!isOttoError(caught)) return;
    expect(caught.code).toBe("prompt_variable");
    expect(caught.message).toContain(`'${name}'`);
    expect(caught.message).toContain(`'${missing}'`);
    expect(caught.message).toContain(prompt.file);
  });

  if (prompt.meta.envelope) {
    it("asks for a BEGIN_JSON … END_JSON envelope and shows an example that parses", () => {
      const example = jsonExample(prompt.body);
      expect(example, "the prompt shows an example between BEGIN_JSON and END_JSON lines").toBeDefined();
      const parsed = JSON.parse(example ?? "") as unknown;
      expect(typeof parsed).toBe("object");
      expect(prompt.body).toMatch(/nothing after it/);
    });
  }

  if (prompt.meta.document) {
    it("asks for the document between BEGIN_DOCUMENT and END_DOCUMENT", () => {
      expect(prompt.body).toContain(`\`${MARKERS.documentBegin}\``);
      expect(prompt.body).toContain(`\`${MARKERS.documentEnd}\``);
    });
  }

  if (prompt.meta.edits) {
    it("works in the repository without committing", () => {
      expect(prompt.body).toMatch(/[Dd]o not commit/);
    });
    // pr-comment-respond reports through its envelope instead (WONT_FIX when it cannot fix).
    if (!prompt.meta.envelope) {
      it("reports failure with a last line TASK_FAILED: <reason>", () => {
        expect(prompt.body).toContain(`${MARKERS.taskFailed} <`);
      });
    }
    // The retry turn and the crew's message deliveries continue a conversation: they say nothing about files.
  } else if (!["json-retry", "crew-wake", "crew-deliver"].includes(name)) {
    it("is read-only", () => {
      expect(prompt.body).toMatch(/change nothing|do not modify|not modify any file|do not change any file|you only read/i);
    });
  }
});

describe("prompt content", () => {
  it("has no prompt that asks for both an envelope and a document", () => {
    const both = PROMPT_NAMES.filter((n) => loadPrompt(n, { env }).meta.envelope && loadPrompt(n, { env }).meta.document);
    expect(both).toEqual([]);
  });

  it.each([
    ["requirements", "requirements_md"],
    ["research", "existing_research_md"],
    ["design", "existing_design_md"],
    ["tasks", "existing_tasks_md"],
  ] as const)("%s switches to refinement mode when %s is given, and says not to regenerate blindly", (name, existing) => {
    const { variables } = loadPrompt(name, { env }).meta;
    const first = render(name, sample(variables));
    const refine = render(name, { ...sample(variables), [existing]: "# Existing" });
    expect(first).toContain("first");
    expect(refine).toContain("refinement run");
    expect(refine).toContain("do not regenerate it blindly");
    expect(refine).toContain("# Existing");
  });

  it("tasks: spells out the tasks.md format the parser reads", () => {
    const body = loadPrompt("tasks", { env }).body;
    for (const field of ["id", "status", "parallel_group", "depends_on", "description", "files"]) {
      expect(body).toContain(`- **${field}**:`);
    }
    expect(body).toContain("# Tasks");
    expect(body).toContain("## Task 1:");
    expect(body).toContain("strictly lower group");
  });

  it("tasks: the add-task mode replaces the refinement wording", () => {
    const vars = { ...sample(PROMPT_CONTRACTS.tasks.variables), existing_tasks_md: "# Tasks", task_request: "Add rate limiting" };
    const text = render("tasks", vars);
    expect(text).toContain("add-task run");
    expect(text).not.toContain("This is a **refinement run**");
    expect(text).toContain("Add rate limiting");
  });

  it("task-briefing: formats list variables as bullet lines", () => {
    const vars = {
      ...sample(PROMPT_CONTRACTS["task-briefing"].variables),
      task_files: ["src/a.ts", "test/a.test.ts"],
      task_depends_on: [],
    };
    const text = render("task-briefing", vars);
    expect(text).toContain("- src/a.ts\n- test/a.test.ts");
    expect(text).toContain("(none)");
  });

  it("pr-comment-respond: words a general (non-inline) comment differently", () => {
    const vars = { ...sample(PROMPT_CONTRACTS["pr-comment-respond"].variables), comment_file: "", comment_line: "" };
    const text = render("pr-comment-respond", vars);
    expect(text).toContain("on the PR as a whole");
  });

  it("review and phase-review ask for the same critique shape", () => {
    const review = JSON.parse(jsonExample(loadPrompt("review", { env }).body) ?? "") as Record<string, unknown>;
    const phase = JSON.parse(jsonExample(loadPrompt("phase-review", { env }).body) ?? "") as Record<string, unknown>;
    expect(Object.keys(review).sort()).toEqual(["issues", "summary", "verdict"]);
    expect(Object.keys(phase).sort()).toEqual(Object.keys(review).sort());
  });

  it.each([
    ["question-harvest", ["questions"]],
    ["question-resolve", ["answer", "answerable", "confidence", "evidence"]],
    ["question-validate", ["reason", "verdict"]],
    ["pr-review", ["comments", "summary"]],
    ["pr-comment-respond", ["decision", "fix_description", "reply"]],
  ] as const)("%s shows an example with the documented top-level fields", (name, fields) => {
    const example = JSON.parse(jsonExample(loadPrompt(name, { env }).body) ?? "") as Record<string, unknown>;
    expect(Object.keys(example).sort()).toEqual([...fields]);
  });

  it("treats third-party text as data in the prompts that receive it", () => {
    for (const name of ["pr-review", "pr-comment-respond", "question-harvest", "pr-failure-analysis"] as const) {
      expect(loadPrompt(name, { env }).body).toMatch(/not instructions/);
    }
  });
});
