import { openSync, writeSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import fc from "fast-check";
import {
  closeWhenUnused,
  openFileBackedStringTable,
} from "../../core/models/lexicon/file-backed-string-table.js";
import { buildSortedStringTable } from "../../core/models/lexicon/sorted-string-table.js";

const PREFIX = Buffer.from("header line before the section\n", "utf8");

/** Writes `bytes` after PREFIX into a fresh file and opens it as a file-backed table. */
async function fileBacked(bytes: Buffer) {
  const directory = await mkdtemp(join(tmpdir(), "file-backed-table-"));
  const path = join(directory, "table.bin");
  await writeFile(path, Buffer.concat([PREFIX, bytes]));
  const file = { fd: openSync(path, "r+") };
  closeWhenUnused(file);
  const table = openFileBackedStringTable(file, Buffer.from(bytes), PREFIX.length);
  return { table, file, directory };
}

const word = fc.string({ unit: fc.constantFrom("a", "b", "ä", "ß", "é", " ", "z", "\u001e"), maxLength: 8 });

test("a table read from its file answers every key as the table it was built from", async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(word, word, { maxKeys: 60 }),
      fc.array(word, { maxLength: 20 }),
      async (record, probes) => {
        const built = buildSortedStringTable(new Map(Object.entries(record)));
        const { table, directory } = await fileBacked(built.bytes);
        try {
          if (table.size !== built.size) return false;
          for (const key of [...Object.keys(record), ...probes]) {
            if (table.get(key) !== built.get(key) || table.has(key) !== built.has(key)) return false;
          }
          return true;
        } finally {
          await rm(directory, { recursive: true });
        }
      },
    ),
    { numRuns: 60 },
  );
  t.pass();
});

test("values are read from the file at each lookup, not kept in memory", async (t) => {
  const built = buildSortedStringTable(
    new Map([
      ["haus", "house"],
      ["baum", "tree"],
      ["katze", "cat"],
    ]),
  );
  const { table, file, directory } = await fileBacked(built.bytes);
  t.is(table.get("baum"), "tree");
  // Overwrite the value's bytes in place: a table holding its values in memory would still say "tree".
  const valueAt = PREFIX.length + built.bytes.indexOf("tree");
  writeSync(file.fd, Buffer.from("TREE"), 0, 4, valueAt);
  t.is(table.get("baum"), "TREE");
  t.is(table.get("haus"), "house");
  t.true(table.has("katze"));
  t.false(table.has("hund"));
  t.is(table.get("hund"), undefined);
  await rm(directory, { recursive: true });
});
