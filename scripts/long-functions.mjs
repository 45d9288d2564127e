// Lists the functions of MIN lines or more (default 100) in hand-written TypeScript: tracked and
// untracked files outside test/, gen/, sdk/, vendor/. Usage: node scripts/long-functions.mjs [ROOT] [MIN]

import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

const root = process.argv[2] ?? ".";
const min = Number(process.argv[3] ?? 100);
const files = execSync("git ls-files --cached --others --exclude-standard '*.ts' '*.tsx' '*.mts'", {
  cwd: root,
})
  .toString()
  .split("\n")
  .filter((f) => f && !/^(test|gen|sdk|vendor|node_modules)\//.test(f) && !f.includes("/gen/"));
const rows = [];
for (const file of files) {
  const text = readFileSync(`${root}/${file}`, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node, outer) => {
    let name = outer;
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node)
    ) {
      let n = node.name?.getText(sf);
      if (!n && node.parent && ts.isVariableDeclaration(node.parent)) n = node.parent.name.getText(sf);
      if (!n && node.parent && ts.isPropertyAssignment(node.parent)) n = node.parent.name.getText(sf);
      if (!n && node.parent && ts.isCallExpression(node.parent))
        n = `${node.parent.expression.getText(sf).slice(0, 40)}(…)`;
      n = n ?? "(anonymous)";
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = end - start + 1;
      if (lines >= min) rows.push({ file, name: outer ? `${outer} > ${n}` : n, start, lines });
      name = outer ? `${outer} > ${n}` : n;
    }
    ts.forEachChild(node, (c) => visit(c, name));
  };
  visit(sf, "");
}
rows.sort((a, b) => b.lines - a.lines);
for (const r of rows) console.log(`${String(r.lines).padStart(4)}  ${r.file}:${r.start}  ${r.name}`);
console.log(`total: ${rows.length} (top-level: ${rows.filter((r) => !r.name.includes(" > ")).length})`);
