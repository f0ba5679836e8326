/*
 * A writer in its own process for store-concurrency.test.ts: `node --import tsx store-writer.ts
 * <dir> <key> <tag> <count>` appends `<tag>-<i>` to the Notes section `count` times, each a
 * read-modify-write through store.update.
 */
import { createPrStore } from "../../../../src/pr/store/store.ts";
import { appendNote } from "./notes.ts";

const [dir = "", key = "", tag = "", count = "0"] = process.argv.slice(2);
const store = createPrStore(dir);
for (let i = 0; i < Number(count); i++) await store.update(key, (doc) => appendNote(doc, `${tag}-${i}`));
