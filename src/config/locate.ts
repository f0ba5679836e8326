import { findNodeAtLocation, type Node } from "jsonc-parser";
import { positionAt, type Position } from "../core/index.ts";

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
