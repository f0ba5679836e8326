import { z } from "zod";
import { ConfigFile } from "./schema.ts";
import { closest } from "./suggest.ts";

/*
 * Walks the zod schema by key path, so did-you-mean suggestions, `set` and the docs use the
 * same key list as validation instead of a hand-kept copy.
 */

type Schema = z.core.$ZodType;

function unwrap(schema: Schema): Schema {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    return unwrap(schema.unwrap());
  }
  return schema;
}

function child(schema: Schema, segment: string | number): Schema | undefined {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject && typeof segment === "string") {
    return Object.hasOwn(inner.shape, segment) ? (inner.shape[segment] as Schema) : undefined;
  }
  if (inner instanceof z.ZodArray && typeof segment === "number") return inner.element;
  if (inner instanceof z.ZodRecord && typeof segment === "string") return inner.valueType;
  if (inner instanceof z.ZodUnion) {
    for (const option of inner.options as Schema[]) {
      const found = child(option, segment);
      if (found) return found;
    }
  }
  return undefined;
}

/** The schema of the value at `path`, or undefined when no such key exists. */
export function schemaAt(path: readonly PropertyKey[], root: Schema = ConfigFile): Schema | undefined {
  let current: Schema | undefined = root;
  for (const segment of path) {
    if (!current || typeof segment === "symbol") return undefined;
    current = child(current, segment);
  }
  return current;
}

/** The keys an object at `path` accepts ([] when it is not an object). */
export function objectKeys(path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(path);
  const inner = schema && unwrap(schema);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

/** Every key path of the schema, arrays written as `[]` (e.g. "repos[].name"). */
export function allKeyPaths(root: Schema = ConfigFile, prefix = ""): string[] {
  const inner = unwrap(root);
  const out: string[] = [];
  if (inner instanceof z.ZodObject) {
    for (const key of Object.keys(inner.shape)) {
      const path = prefix ? `${prefix}.${key}` : key;
      const value = child(inner, key);
      out.push(path, ...(value ? allKeyPaths(value, path) : []));
    }
  } else if (inner instanceof z.ZodArray) {
    out.push(...allKeyPaths(inner.element, `${prefix}[]`));
  }
  return out;
}

/** Whether `value` is valid for the key at `path` on its own. */
export function acceptsValue(path: readonly PropertyKey[], value: unknown): boolean {
  const schema = schemaAt(path);
  return schema ? z.safeParse(schema, value).success : false;
}

/** A key written at the wrong level, e.g. "max_parallel_tasks" at the top instead of under spec. */
export function keyElsewhere(key: string): string | undefined {
  return allKeyPaths().find((p) => !p.includes("[]") && closest(key, [p.split(".").pop() ?? ""]) !== undefined);
}
