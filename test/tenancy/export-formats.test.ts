import test from "ava";
import fc from "fast-check";
import { auditActor, csvField, csvRecord } from "../../core/tenancy/audit-csv.js";
import { groupBySize } from "../../core/tenancy/read-memories-in-batches.js";
import { parseCsv } from "./export-helper.js";

// The pure parts of the exports: CSV fields (RFC 4180 quoting, formula guard) and the grouping
// that bounds how much memory content one read holds.

const FORMULA_START = ["=", "+", "-", "@", "\t", "\r"];

test("any record reads back field for field; formula starts come back behind an apostrophe", (t) => {
  const text = fc.string({ unit: "grapheme-composite", maxLength: 30 });
  const tricky = fc.constantFrom('"', ",", "\r\n", "\n", "\r", "=", "+", "-", "@", "\t", "'", " ");
  const field = fc.array(fc.oneof(text, tricky), { maxLength: 6 }).map((parts) => parts.join(""));
  fc.assert(
    fc.property(fc.array(field, { minLength: 1, maxLength: 8 }), (fields) => {
      const [record, ...rest] = parseCsv(csvRecord(fields));
      t.is(rest.length, 0);
      const expected = fields.map((f) => (FORMULA_START.some((c) => f.startsWith(c)) ? `'${f}` : f));
      t.deepEqual(record, expected);
    }),
  );
});

test("no cell of the file starts with a formula character", (t) => {
  fc.assert(
    fc.property(fc.string(), (value) => {
      const cell = csvField(value);
      const content = cell.startsWith('"') ? cell.slice(1) : cell;
      t.false(
        FORMULA_START.some((c) => content.startsWith(c)),
        JSON.stringify(value),
      );
    }),
  );
});

test("fields are quoted only when RFC 4180 needs it", (t) => {
  t.is(csvField("plain text"), "plain text");
  t.is(csvField(""), "");
  t.is(csvField('say "hi"'), '"say ""hi"""');
  t.is(csvField("a,b"), '"a,b"');
  t.is(csvField("line\nbreak"), '"line\nbreak"');
  t.is(csvField("=1+1"), "'=1+1");
  t.is(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
  t.is(csvRecord(["a", "b"]), "a,b\r\n");
});

test("the actor names the user, the token, both, or nobody", (t) => {
  t.is(auditActor({ actor_user_id: "u", actor_token_id: null }), "user:u");
  t.is(auditActor({ actor_user_id: null, actor_token_id: "k" }), "token:k");
  t.is(auditActor({ actor_user_id: "u", actor_token_id: "k" }), "user:u token:k");
  t.is(auditActor({ actor_user_id: null, actor_token_id: null }), "");
});

test("memory groups keep the order, stay within the budget, and a larger memory is alone", (t) => {
  const keys = fc.array(fc.record({ id: fc.uuid(), size: fc.nat({ max: 3000 }) }), { maxLength: 200 });
  fc.assert(
    fc.property(keys, fc.integer({ min: 1, max: 2000 }), (input, budget) => {
      const groups = groupBySize(input, budget);
      t.deepEqual(
        groups.flat(),
        input.map((k) => k.id),
      );
      const sizes = new Map(input.map((k) => [k.id, k.size]));
      for (const group of groups) {
        t.true(group.length > 0);
        const total = group.reduce((sum, id) => sum + (sizes.get(id) ?? 0), 0);
        t.true(total <= budget || group.length === 1, `${total} > ${budget} in ${group.length}`);
      }
    }),
  );
});
