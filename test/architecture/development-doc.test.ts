import { readdirSync, readFileSync } from "node:fs";
import test from "ava";

// docs/development.md is where a newcomer finds what each folder is for (issue 44): a folder it
// never names is one nobody explained. Checked for the top level and the folders of the parts.

const doc = readFileSync("docs/development.md", "utf8");
const UNLISTED = new Set(["node_modules"]);

function folders(parent: string): string[] {
  return readdirSync(parent === "" ? "." : parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !UNLISTED.has(entry.name))
    .map((entry) => entry.name);
}

test("docs/development.md names every top-level folder", (t) => {
  const missing = folders("").filter((name) => !doc.includes(`${name}/`));
  t.deepEqual(missing, []);
});

test("docs/development.md names every folder of core/, lib/, the gateways, edge/, worker/, cli/ and dashboard/", (t) => {
  const parents = [
    "core",
    "lib",
    ...folders("").filter((name) => name.startsWith("gateway-")),
    "edge",
    "worker",
    "cli",
    "dashboard",
  ];
  t.true(parents.length >= 10, "the parts were found");
  const missing = parents.flatMap((parent) =>
    folders(parent)
      .filter((name) => !doc.includes(`${name}/`))
      .map((name) => `${parent}/${name}/`),
  );
  t.deepEqual(missing, []);
});
