import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import test from "ava";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { runCli } from "../lifecycle/lifecycle-kit.js";
import { UNTHROTTLED } from "../mcp/post-mcp.js";
import { rest } from "../rest/rest-client.js";
import { startIngestService } from "./ingest-test-kit.js";

// `npm run cli -- import markdown --tenant <slug> <folder>` (issue 48 item 4) as the operator runs it,
// against a running service's database and data directory, with a small Obsidian-style vault written
// here: front matter → tags and metadata, [[wikilinks]] → REFERENCES edges, folder → source, re-runs
// report unchanged notes, a changed note drops the edges of links it no longer has.

let service: TestService;
let tenant: TestTenant;
let vault: string;

const VAULT: Record<string, string> = {
  "Projects/Alpha.md": [
    "---",
    "tags: [project, '#active']",
    "status: draft",
    "owner:",
    "  name: Dana",
    "---",
    "# Alpha",
    "",
    "Alpha ships the quarzite importer. It needs [[Beta]] and [[Beta|the beta service]],",
    "and [[People/Carol#Role|Carol]] reviews it. Open question: [[Missing note]].",
  ].join("\n"),
  "Beta.md": "Beta is the storage layer behind [[Alpha]].\n",
  "People/Carol.md": "---\naliases: [CJ]\n---\nCarol leads the review board. Also called [[CJ]].\n",
  ".obsidian/workspace.md": "not a note [[Alpha]]\n",
  "Broken.md": "---\ntags: [a\n---\nText\n",
};

async function writeVault(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(vault, dirname(path)), { recursive: true });
    await writeFile(join(vault, path), text);
  }
}

const importVault = () =>
  runCli(service, ["import", "markdown", "--tenant", tenant.slug, vault], {
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
  });

async function currentNotes() {
  return service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ id: string; title: string; tags: string[]; source: string; metadata: Record<string, unknown> }[]>`
      select id, title, tags, source, metadata from memories where valid_to is null order by title`,
  );
}

async function references() {
  const rows = await service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ pair: string }[]>`
      select f.title || ' -> ' || t.title as pair from edges e
      join memories f on f.id = e.from_id join memories t on t.id = e.to_id
      where e.rel_type = 'REFERENCES' and e.valid_to is null order by 1`,
  );
  return rows.map((r) => r.pair);
}

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
  vault = await mkdtemp(join(tmpdir(), "memory-vault-"));
  await writeVault(VAULT);
});

test.after.always(async () => {
  await service?.stop();
  if (vault) await rm(vault, { recursive: true, force: true });
});

test.serial(
  "a vault becomes documents with tags, metadata, folder as source and REFERENCES between linked notes",
  async (t) => {
    const run = await importVault();
    t.is(run.code, 1, "a note failed (Broken.md), so the exit code says so");
    t.regex(run.stdout, /^created\tBeta\.md$/m);
    t.regex(run.stdout, /^created\tProjects\/Alpha\.md$/m);
    t.regex(run.stdout, /^created\tPeople\/Carol\.md$/m);
    t.regex(run.stdout, /^failed: front matter is not valid YAML[^\n]*\tBroken\.md$/m);
    t.regex(run.stdout, /^unresolved link \[\[Missing note\]\]\tProjects\/Alpha\.md$/m);
    t.regex(run.stdout, /3 created, 0 updated, 0 unchanged, 1 failed; 3 links, 1 unresolved\n$/);
    t.false(run.stdout.includes(".obsidian"), "dot folders are skipped");
    t.false(run.stderr.includes("["), "no progress bar when stderr is not a terminal");

    const notes = await currentNotes();
    t.deepEqual(
      notes.map((n) => n.title),
      ["Alpha", "Beta", "Carol"],
    );
    const alpha = notes.find((n) => n.title === "Alpha");
    t.deepEqual(alpha?.tags, ["project", "active"]);
    t.is(alpha?.source, "Projects");
    t.like(alpha?.metadata, {
      status: "draft",
      owner: { name: "Dana" },
      vault: { path: "Projects/Alpha.md" },
    });
    t.is(notes.find((n) => n.title === "Beta")?.source, "/");
    t.deepEqual(await references(), ["Alpha -> Beta", "Alpha -> Carol", "Beta -> Alpha"]);

    // The front matter is not indexed; the note is found by its text, with its title.
    const recall = await rest(service.httpUrl, "/api/v1/memory/recall", {
      token: tenant.token,
      body: { query: "quarzite importer", k: 3 },
    });
    const hits = (recall.body as { hits: { memoryId: string; snippet: string }[] }).hits;
    t.is(hits[0]?.memoryId, alpha?.id);
    t.false(hits[0]?.snippet.includes("status: draft") ?? true);
  },
);

test.serial(
  "a re-run reports every note unchanged and writes nothing; a changed note is updated and loses removed links",
  async (t) => {
    const before = await currentNotes();
    const again = await importVault();
    t.regex(again.stdout, /^unchanged\tProjects\/Alpha\.md$/m);
    t.regex(again.stdout, /0 created, 0 updated, 3 unchanged, 1 failed; 3 links/);
    t.deepEqual(
      (await currentNotes()).map((n) => n.id),
      before.map((n) => n.id),
      "no new versions",
    );

    // Only the front matter changes and the Beta links go: Alpha is updated, its Beta edge removed,
    // Beta's edge to Alpha moves to Alpha's new version.
    await writeVault({
      "Projects/Alpha.md": (VAULT["Projects/Alpha.md"] ?? "")
        .replace("status: draft", "status: final")
        .replace(" It needs [[Beta]] and [[Beta|the beta service]],", ""),
      "Broken.md": "---\ntags: [a]\n---\nNow fine.\n",
    });
    const changed = await importVault();
    t.is(changed.code, 0, changed.stdout);
    t.regex(changed.stdout, /^updated\tProjects\/Alpha\.md$/m);
    t.regex(changed.stdout, /^unchanged\tBeta\.md$/m);
    t.regex(changed.stdout, /^created\tBroken\.md$/m);
    const notes = await currentNotes();
    const alpha = notes.find((n) => n.title === "Alpha");
    t.not(alpha?.id, before.find((n) => n.title === "Alpha")?.id);
    t.like(alpha?.metadata, { status: "final" });
    t.is(notes.filter((n) => n.title === "Alpha").length, 1, "the old version was replaced");
    t.deepEqual(await references(), ["Alpha -> Carol", "Beta -> Alpha"]);
  },
);

test.serial("usage errors: a missing folder or workspace is named, exit code 2 or 1", async (t) => {
  const noFolder = await runCli(service, ["import", "markdown", "--tenant", tenant.slug]);
  t.is(noFolder.code, 2);
  t.regex(noFolder.stderr, /vault folder is required/);
  const noTenant = await runCli(service, ["import", "markdown", "--tenant", "nobody-here", vault]);
  t.is(noTenant.code, 1);
  t.regex(noTenant.stderr, /no workspace "nobody-here"/);
});
