import { describe, expect, it } from "vitest";
import { parseTemplate, renderTemplate, TemplateError } from "../../../src/prompts/template-engine.ts";

const helpers = new Map([["list", (v: unknown) => (Array.isArray(v) ? v.map((x) => `- ${String(x)}`).join("\n") : String(v))]]);
const render = (source: string, vars: Record<string, unknown>) => renderTemplate(parseTemplate(source, new Set(helpers.keys())), vars, helpers);
const error = (run: () => unknown): TemplateError => {
  try {
    run();
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error("did not throw");
};

describe("otto's template language (the Handlebars subset its prompts use)", () => {
  it("inserts variables as they are, strictly", () => {
    expect(render("a {{x}} b {{n}} {{f}} {{u}}", { x: "<b>&{{y}}", n: 0, f: false, u: null })).toBe("a <b>&{{y}} b 0 false ");
    expect(error(() => render("\n  {{missing}}", {}))).toMatchObject({ kind: "undefined_variable", subject: "missing", position: { line: 2, column: 3 } });
  });

  it("takes #if and #unless like Handlebars: falsy values and empty arrays are false", () => {
    const t = "{{#if x}}yes{{else}}no{{/if}}/{{#unless x}}U{{/unless}}";
    for (const x of [undefined, null, false, 0, "", []]) expect(render(t, x === undefined ? {} : { x })).toBe("no/U");
    for (const x of [true, 1, "a", ["a"], {}]) expect(render(t, { x })).toBe("yes/");
  });

  it("removes block tags that stand alone on their lines, with the line", () => {
    const t = "a\n  {{#if x}}  \n  b\n  {{else}}\n  c\n  {{/if}}\nd";
    expect(render(t, { x: 1 })).toBe("a\n  b\nd");
    expect(render(t, { x: 0 })).toBe("a\n  c\nd");
    expect(render("x {{#if y}}\nb\n{{/if}} z", { y: 1 })).toBe("x \nb\n z");
    expect(render("{{#if x}}\r\nb\r\n{{/if}}\r\n", { x: 1 })).toBe("b\r\n");
    expect(render("{{#if x}}\n{{#if y}}\nz\n{{/if}}\n{{/if}}\n", { x: 1, y: 1 })).toBe("z\n");
  });

  it("calls helpers, and refuses a helper given a variable that was not passed", () => {
    expect(render("{{list xs}}", { xs: ["a", "b"] })).toBe("- a\n- b");
    expect(error(() => render("{{list nope}}", {}))).toMatchObject({ kind: "undefined_helper_argument", subject: "list" });
  });

  it("says what is wrong with a template, and where", () => {
    const syntax = (source: string) => error(() => parseTemplate(source, new Set(["list"])));
    expect(syntax("a\n{{#if x}}\nb")).toMatchObject({ message: "{{#if x}} is unclosed: the template ends before its {{/if}}", position: { line: 2, column: 1 } });
    expect(syntax("{{/if}}").message).toBe("a closing {{/if}} without its opening {{#if}}");
    expect(syntax("{{#if x}}{{/unless}}").message).toBe("{{#if x}} is closed by {{/unless}} on line 1; close it with {{/if}}");
    expect(syntax("{{#each xs}}{{/each}}").message).toMatch(/not supported: the blocks are \{\{#if name\}\} and \{\{#unless name\}\}/);
    expect(syntax("{{{raw}}}").message).toMatch(/not supported here/);
    expect(syntax("{{upper x}}").message).toBe("'upper' is not a helper: the helpers are list");
    expect(syntax("a {{x").message).toBe("the template ends inside an unclosed {{…}}");
    expect(syntax("{{else}}").message).toMatch(/outside an \{\{#if\}\}/);
  });
});
