import { findNodeAtLocation, type Node } from "jsonc-parser";

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like editors count them. */
  column: number;
}

export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Where a key path points in the original text: the value's node, or for `keyOf` the property
 * name itself. A path that does not exist (a missing required key) points at its nearest
 * existing ancestor, so the message still lands on the right object.
 */
export function locatePath(text: string, tree: Node | undefined, path: ReadonlyArray<string | number>, keyOf = false): Position {
  if (!tree) return { line: 1, column: 1 };
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n));
    if (!node) continue;
    const keyNode = n === path.length && keyOf && node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
    return positionAt(text, (keyNode ?? node).offset);
  }
  return positionAt(text, tree.offset);
}
