import { parseArgs } from "node:util";
import { ConnectError } from "@connectrpc/connect";
import { loadConfigOrExit } from "../config/load-or-exit.js";
import { CliError } from "./cli-error.js";
import { importMarkdown } from "./commands/import-markdown.js";
import { keysRotateMaster } from "./commands/keys-rotate-master.js";
import { tenantCreate } from "./commands/tenant-create.js";
import { tenantErase } from "./commands/tenant-erase.js";
import { tenantImport } from "./commands/tenant-import.js";
import { tenantList } from "./commands/tenant-list.js";
import { tenantSetPlan } from "./commands/tenant-set-plan.js";
import { tokenCreate } from "./commands/token-create.js";
import { tokenList } from "./commands/token-list.js";
import { tokenRevoke } from "./commands/token-revoke.js";
import { openDatabase } from "./open-database.js";

// `npm run cli -- <command>`: operator commands against the service's database, configured like
// `npm start` (DATABASE_URL, or the embedded PostgreSQL in DATA_DIR). Self-hosting without mail
// needs nothing else to create a workspace and a token.

const USAGE = `usage: npm run cli -- <command> [options]

  tenant create --slug <slug> [--name <name>] [--plan free|plus|pro|team|api]   (default plan: api)
  tenant list
  tenant set-plan --tenant <slug> --plan free|plus|pro|team|api                 (audited; no payment)
  tenant erase --slug <slug> --confirm <slug>                                   (every row, vector and file of it)
  tenant import --slug <slug> --file <bundle.json>                              (into an empty workspace)
  token create --tenant <slug> [--name <name>] [--scopes read,write,admin]     (default scopes: read)
  token list --tenant <slug>
  token revoke --id <token id>
  keys rotate-master        re-seal provider keys: MASTER_KEY (current) → NEW_MASTER_KEY (environment)
  import markdown --tenant <slug> <folder>                                      (an Obsidian-style vault; re-runs skip unchanged notes)
`;

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        slug: { type: "string" },
        name: { type: "string" },
        plan: { type: "string" },
        tenant: { type: "string" },
        scopes: { type: "string" },
        id: { type: "string" },
        confirm: { type: "string" },
        file: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();

// `import markdown` takes the vault folder as its one further positional argument.
const isImport = positionals[0] === "import" && positionals[1] === "markdown";
const command = (isImport ? positionals.slice(0, 2) : positionals).join(" ");
const vaultFolder = isImport ? positionals[2] : undefined;
if (values.help || command === "" || command === "help") {
  process.stdout.write(USAGE);
  process.exit(0);
}
const KNOWN = [
  "tenant create",
  "tenant list",
  "tenant set-plan",
  "tenant erase",
  "tenant import",
  "token create",
  "token list",
  "token revoke",
  "keys rotate-master",
  "import markdown",
];
if (!KNOWN.includes(command)) {
  process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
  process.exit(2);
}

const config = loadConfigOrExit();
const database = await openDatabase(config);
let exitCode = 0;
try {
  const { db } = database;
  switch (command) {
    case "tenant create":
      process.stdout.write(await tenantCreate(db, values));
      break;
    case "tenant list":
      process.stdout.write(await tenantList(db));
      break;
    case "tenant set-plan":
      process.stdout.write(await tenantSetPlan(db, values));
      break;
    case "tenant erase":
      process.stdout.write(await tenantErase(db, config, values));
      break;
    case "tenant import":
      process.stdout.write(await tenantImport(db, config, values));
      break;
    case "token create": {
      const { stdout, stderr } = await tokenCreate(db, values);
      process.stderr.write(stderr);
      process.stdout.write(stdout);
      break;
    }
    case "token list":
      process.stdout.write(await tokenList(db, values));
      break;
    case "token revoke":
      process.stdout.write(await tokenRevoke(db, values));
      break;
    case "import markdown": {
      const { stdout, failed } = await importMarkdown(
        db,
        config,
        { tenant: values.tenant, folder: vaultFolder },
        {
          write: (text) => process.stderr.write(text),
          isTTY: process.stderr.isTTY === true,
        },
      );
      process.stdout.write(stdout);
      if (failed) exitCode = 1;
      break;
    }
    case "keys rotate-master":
      process.stdout.write(
        await keysRotateMaster(db, { masterKey: config.masterKey, newMasterKey: config.newMasterKey }),
      );
      break;
  }
} catch (error) {
  if (error instanceof CliError || error instanceof ConnectError) {
    process.stderr.write(`error: ${error instanceof ConnectError ? error.rawMessage : error.message}\n`);
    exitCode = error instanceof CliError ? error.exitCode : 1;
  } else {
    throw error;
  }
} finally {
  await database.close();
}
process.exit(exitCode);
