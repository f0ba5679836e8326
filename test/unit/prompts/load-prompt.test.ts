import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OttoError, builtinDir } from "../../../src/core/index.ts";
import { PROMPT_NAMES, listPrompts, loadPrompt, renderPrompt, userPromptDir, type PromptName } from "../../../src/prompts/index.ts";

let home: string;
let env: Record<string, string>;
let overrides: string;

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-prompts-"));
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
  overrides = path.join(home, "config", "otto", "prompts");
  fs.mkdirSync(overrides, { recursive: true });
});

afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

function override(name: string, text: string): string {
  const file = path.join(overrides, `${name}.md`);
  fs.writeFileSync(file, text);
  return file;
}

function thrown(fn: () => unknown): OttoError {
  try {
    fn();
  } catch (error) {
    if (error instanceof OttoError) return error;
    throw error;
  }
  throw new Error("expected an OttoError");
}

const retryVars = { validation_error: "missing verdict", expected_shape: '{ "verdict": "approve" }' };

describe("loadPrompt", () => {
  it("finds overrides in $XDG_CONFIG_HOME/otto/prompts", () => {
    expect(userPromptDir(env)).toBe(overrides);
    expect(userPromptDir({ HOME: home })).toBe(path.join(home, ".config", "otto", "prompts"));
  });

  it("loads the builtin when there is no override", () => {
    const prompt = loadPrompt("design", { env });
    expect(prompt).toMatchObject({ name: "design", source: "builtin", file: path.join(builtinDir("prompts"), "design.md") });
    expect(prompt.meta.variables).toEqual(["requirements_md", "research_md"]);
  });

  it("prefers the user's override, frontmatter stripped, with the builtin's contract", () => {
    const file = override("design", "---\ndescription: mine\nvariables: [nonsense]\n---\nDesign {{requirements_md}} from {{research_md}}.\n");
    const prompt = loadPrompt("design", { env });
    expect(prompt).toMatchObject({ source: "user", file, body: "Design {{requirements_md}} from {{research_md}}." });
    expect(prompt.meta.variables).toEqual(["requirements_md", "research_md"]);
    expect(renderPrompt("design", { requirements_md: "R", research_md: "S" }, { env })).toBe("Design R from S.");
  });

  it("accepts an override without frontmatter", () => {
    override("json-retry", "Fix it: {{validation_error}}\nShape: {{expected_shape}}");
    expect(renderPrompt("json-retry", retryVars, { env })).toBe('Fix it: missing verdict\nShape: { "verdict": "approve" }');
  });

  it("re-reads an override on every call, so edits take effect at once", () => {
    override("json-retry", "first {{validation_error}}");
    expect(renderPrompt("json-retry", retryVars, { env })).toBe("first missing verdict");
    override("json-retry", "second {{validation_error}}");
    expect(renderPrompt("json-retry", retryVars, { env })).toBe("second missing verdict");
    fs.rmSync(path.join(overrides, "json-retry.md"));
    expect(renderPrompt("json-retry", retryVars, { env })).toContain("Your previous answer could not be used");
  });

  it.each(["../x", "/etc/passwd", "..", "a/b", "", "x.md/../../y"])("rejects the unsafe name %j", (name) => {
    const error = thrown(() => loadPrompt(name as PromptName, { env }));
    expect(error.code).toBe("asset_name");
  });

  it("rejects names that are not otto prompts, listing the real ones", () => {
    override("mine", "hello");
    const error = thrown(() => loadPrompt("mine" as PromptName, { env }));
    expect(error.code).toBe("prompt_unknown");
    expect(error.fix).toContain("requirements");
  });

  it("reports a template syntax error in an override with the file and the line in that file", () => {
    const file = override("json-retry", "---\ndescription: x\n---\nline one\nline two {{/if}}\nline three\n");
    const error = thrown(() => loadPrompt("json-retry", { env }));
    expect(error.code).toBe("prompt_syntax");
    expect(error.message).toBe(
      `Prompt 'json-retry' has a template error at ${file}:5:10: a closing {{/if}} without its opening {{#if}}`,
    );
    expect(error.fix).toContain(file);
  });

  it("reports an unclosed block in an override", () => {
    const file = override("json-retry", "line one\n{{#if validation_error}}\nline three");
    const error = thrown(() => loadPrompt("json-retry", { env }));
    expect(error.code).toBe("prompt_syntax");
    expect(error.message).toContain(file);
    expect(error.message).toContain("unclosed");
  });

  it("reports mismatched blocks in an override with the file and line", () => {
    const file = override("json-retry", "a\n{{#if x}}\nb\n{{/each}}\n");
    const error = thrown(() => loadPrompt("json-retry", { env }));
    expect(error.code).toBe("prompt_syntax");
    expect(error.message).toContain(`${file}:2`);
    expect(error.message).toContain("{{#if x}} is closed by {{/each}} on line 4; close it with {{/if}}");
  });

  it("reports broken YAML frontmatter in an override", () => {
    const file = override("json-retry", "---\ndescription: [unclosed\n---\nbody\n");
    const error = thrown(() => loadPrompt("json-retry", { env }));
    expect(error.code).toBe("prompt_frontmatter");
    expect(error.message).toContain(file);
  });

  it("lists every prompt with where it comes from", () => {
    const file = override("review", "Review {{artifact}}");
    const list = listPrompts({ env });
    expect(list.map((p) => p.name)).toEqual([...PROMPT_NAMES]);
    expect(list.find((p) => p.name === "review")).toMatchObject({ source: "user", file });
    expect(list.find((p) => p.name === "design")).toMatchObject({ source: "builtin" });
    expect(list.every((p) => p.description.length > 0)).toBe(true);
  });
});

describe("renderPrompt", () => {
  it("names the override file when a required variable is missing", () => {
    const file = override("json-retry", "{{validation_error}}");
    const error = thrown(() => renderPrompt("json-retry", { validation_error: "x" } as never, { env }));
    expect(error.code).toBe("prompt_variable");
    expect(error.message).toBe(`Prompt 'json-retry' needs variable 'expected_shape' (override ${file}).`);
  });

  it("reports an override that uses a variable otto does not pass, with file, line and the known names", () => {
    const file = override("json-retry", "---\ndescription: x\n---\n\nHello {{validaton_error}}\n");
    const error = thrown(() => renderPrompt("json-retry", retryVars, { env }));
    expect(error.code).toBe("prompt_variable");
    expect(error.message).toContain("'validaton_error'");
    expect(error.message).toContain(`${file}:5:7`);
    expect(error.fix).toContain("validation_error, expected_shape");
  });

  it("reports a helper called on a variable otto does not pass", () => {
    const file = override("json-retry", "{{list nope}}");
    const error = thrown(() => renderPrompt("json-retry", retryVars, { env }));
    expect(error.code).toBe("prompt_variable");
    expect(error.message).toContain(`${file}:1`);
  });

  it("rejects variables the prompt does not take (a misspelt optional would silently drop context)", () => {
    const error = thrown(() =>
      renderPrompt("design", { requirements_md: "R", research_md: "S", existing_design: "D" } as never, { env }),
    );
    expect(error.code).toBe("prompt_variable");
    expect(error.message).toContain("'existing_design'");
    expect(error.fix).toContain("existing_design_md");
  });

  it("treats undefined as omitted", () => {
    const text = renderPrompt("design", { requirements_md: "R", research_md: "S", existing_design_md: undefined }, { env });
    expect(text).toContain("first run");
  });

  it("allows empty strings for required variables", () => {
    expect(() => renderPrompt("requirements", { request: "", requirements_md: "# R" }, { env })).not.toThrow();
  });

  it.each([
    ["a function", () => "x"],
    ["null", null],
    ["a Date", new Date(0)],
    ["a Map", new Map()],
    ["NaN", Number.NaN],
    ["a nested function", { a: [1, () => 2] }],
    ["a symbol", Symbol("s")],
    ["a bigint", 1n],
  ])("rejects %s as a value", (_label, value) => {
    const error = thrown(() => renderPrompt("json-retry", { ...retryVars, expected_shape: value } as never, { env }));
    expect(error.code).toBe("prompt_variable");
    expect(error.message).toContain("'expected_shape'");
  });

  it("accepts numbers, booleans, arrays and plain objects", () => {
    override("json-retry", "{{validation_error}} {{json expected_shape}}");
    const text = renderPrompt("json-retry", { validation_error: 3, expected_shape: { a: [true, "x"], b: Object.create(null) as Record<string, never> } }, { env });
    expect(text).toBe('3 {\n  "a": [\n    true,\n    "x"\n  ],\n  "b": {}\n}');
  });

  it("does not HTML-escape values", () => {
    override("json-retry", "{{validation_error}}");
    expect(renderPrompt("json-retry", { ...retryVars, validation_error: `<a href="x">&'</a>` }, { env })).toBe(
      `<a href="x">&'</a>`,
    );
  });

  it("does not interpret template syntax inside values", () => {
    override("json-retry", "{{validation_error}}");
    expect(renderPrompt("json-retry", { ...retryVars, validation_error: "{{expected_shape}}" }, { env })).toBe("{{expected_shape}}");
  });

  it("formats lists with {{list}}: bullets for arrays, (none) when empty, text as is", () => {
    override("json-retry", "{{list validation_error}}|{{list expected_shape}}");
    expect(renderPrompt("json-retry", { validation_error: ["a", { b: 1 }], expected_shape: [] }, { env })).toBe(
      '- a\n- {"b":1}|(none)',
    );
    expect(renderPrompt("json-retry", { validation_error: "plain", expected_shape: " " }, { env })).toBe("plain|(none)");
  });
});
