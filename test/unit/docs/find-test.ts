import ts from "typescript";

/*
 * What a test file does with a title: runs it, runs it only under a condition, skips it, or has no
 * test of that name. Read from the file's syntax tree, not a pattern, so `it.skip`, `it.todo`, a
 * `describe` of the same title or a skipped `describe` around the test cannot pass for a test.
 */

/** `runnable`: always runs. `conditional`: runs only when its `skipIf`/`runIf` conditions allow. */
export type TestStatus =
  | { kind: "runnable" }
  | { kind: "conditional"; conditions: string[] }
  | { kind: "refused"; why: string }
  | { kind: "absent" };

const TEST_ROOTS = new Set(["it", "test"]);
const SUITE_ROOTS = new Set(["describe", "suite"]);
/** Modifiers that change nothing about whether a test runs. */
const NEUTRAL = new Set(["concurrent", "sequential", "each", "for"]);
const CONDITIONS = new Set(["skipIf", "runIf"]);

interface Callee {
  root: string;
  modifiers: string[];
  conditions: string[];
}

/** `it.skipIf(x).concurrent` → root `it`, modifiers `skipIf`, `concurrent`, conditions `skipIf(x)`. */
function callee(expression: ts.Expression, file: ts.SourceFile): Callee | undefined {
  if (ts.isIdentifier(expression)) return { root: expression.text, modifiers: [], conditions: [] };
  if (ts.isPropertyAccessExpression(expression)) {
    const inner = callee(expression.expression, file);
    return inner && { ...inner, modifiers: [...inner.modifiers, expression.name.text] };
  }
  if (ts.isCallExpression(expression)) {
    const inner = callee(expression.expression, file);
    const last = inner?.modifiers.at(-1);
    if (!inner || last === undefined) return undefined;
    const args = expression.arguments.map((a) => a.getText(file)).join(", ");
    return CONDITIONS.has(last) ? { ...inner, conditions: [...inner.conditions, `${last}(${args})`] } : inner;
  }
  return undefined;
}

/** Why a call's modifiers keep it from running unconditionally, if they do. */
function refusal(c: Callee): string | undefined {
  const odd = c.modifiers.filter((m) => !NEUTRAL.has(m) && !CONDITIONS.has(m));
  return odd.length > 0 ? `${c.root}.${odd.join(".")}` : undefined;
}

/** The raw text between a string literal's quotes, as the file writes it. */
function rawTitle(node: ts.Node, file: ts.SourceFile): string | undefined {
  if (!ts.isStringLiteral(node) && !ts.isNoSubstitutionTemplateLiteral(node)) return undefined;
  return node.getText(file).slice(1, -1);
}

/** What `source` does with the test titled exactly `title` (as written between its quotes). */
export function testStatus(source: string, title: string): TestStatus {
  const file = ts.createSourceFile("t.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let best: TestStatus = { kind: "absent" };
  const rank = (s: TestStatus): number => ["absent", "refused", "conditional", "runnable"].indexOf(s.kind);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments[0] && rawTitle(node.arguments[0], file) === title) {
      const found = judge(node, file);
      if (found && rank(found) > rank(best)) best = found;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return best;
}

function judge(call: ts.CallExpression, file: ts.SourceFile): TestStatus | undefined {
  const c = callee(call.expression, file);
  if (!c) return undefined;
  if (SUITE_ROOTS.has(c.root)) return { kind: "refused", why: `a ${c.root}, not a test` };
  if (!TEST_ROOTS.has(c.root)) return undefined;
  const why = refusal(c);
  if (why) return { kind: "refused", why };
  const body = call.arguments[1];
  if (!body || !(ts.isArrowFunction(body) || ts.isFunctionExpression(body)))
    return { kind: "refused", why: "no test function (a todo)" };
  const conditions = [...c.conditions];
  for (let node: ts.Node = call; node.parent; node = node.parent) {
    const parent = node.parent;
    if (!ts.isCallExpression(parent) || !parent.arguments.includes(node as ts.Expression)) continue;
    const outer = callee(parent.expression, file);
    if (!outer || !SUITE_ROOTS.has(outer.root)) continue;
    const outerWhy = refusal(outer);
    if (outerWhy) return { kind: "refused", why: `inside ${outerWhy}` };
    conditions.push(...outer.conditions);
  }
  return conditions.length > 0 ? { kind: "conditional", conditions } : { kind: "runnable" };
}
