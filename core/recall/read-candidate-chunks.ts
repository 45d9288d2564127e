import type { TransactionSql } from "../store/database.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";

/** A chunk with the memory version it belongs to: what a hit is built from. */
export interface CandidateChunk {
  readonly chunkId: string;
  readonly memoryId: string;
  readonly content: string;
  readonly title: string;
  readonly memoryType: string;
  readonly kind: string;
  readonly origin: string;
  readonly validFrom: Date;
  readonly validTo: Date | null;
  readonly createdAt: Date;
  /** A PDF upload's pages the chunk begins and ends on (docs/ingest.md "Files"); unset otherwise. */
  readonly page?: number;
  readonly pageEnd?: number;
  /**
   * A turn of a conversation session (ADR 0530): ranked and returned on its own, so several turns of
   * one session can be hits; unset for every other chunk, which stands for its memory.
   */
  readonly turn?: true;
}

interface Row {
  chunk_id: string;
  memory_id: string;
  content: string;
  title: string;
  memory_type: string;
  kind: string;
  source: string | null;
  valid_from: Date;
  valid_to: Date | null;
  created_at: Date;
  page: number | null;
  page_end: number | null;
  turn: boolean;
}

const toCandidate = (r: Row): CandidateChunk => ({
  chunkId: r.chunk_id,
  memoryId: r.memory_id,
  content: r.content,
  title: r.title,
  memoryType: r.memory_type,
  kind: r.kind,
  origin: r.source ?? "",
  validFrom: r.valid_from,
  validTo: r.valid_to,
  createdAt: r.created_at,
  ...(r.page === null ? {} : { page: r.page }),
  ...(r.page_end === null ? {} : { pageEnd: r.page_end }),
  ...(r.turn ? { turn: true as const } : {}),
});

/**
 * The pages of a PDF upload a chunk spans: the number of page starts (metadata.file.pageStarts, UTF-16
 * offsets into the content, written by IngestService/UploadFile) at or before the chunk's first and
 * last character. Null for every memory that is not a PDF upload: the subqueries run only for those. A memory
 * reached over the graph without chunks yet counts from its start.
 */
function pageColumns(tx: TransactionSql) {
  const starts = tx`jsonb_array_elements_text(m.metadata -> 'file' -> 'pageStarts')`;
  const isPdf = tx`m.metadata -> 'file' ->> 'type' = 'pdf' and jsonb_typeof(m.metadata -> 'file' -> 'pageStarts') = 'array'`;
  return tx`
    case when ${isPdf} then (select count(*)::int from ${starts} s where s::int <= coalesce(c.char_start, 0)) end as page,
    case when ${isPdf} then (select count(*)::int from ${starts} s where s::int < greatest(coalesce(c.char_end, 1), coalesce(c.char_start, 0) + 1)) end as page_end`;
}

/**
 * Whether the memory is a conversation session (ADR 0484): its source says so and its lineage is a
 * session the conversations route wrote — a memory stored with a `conversation:` source by hand, or a
 * session imported without its turns, is not. The lookup runs only for `conversation:` sources.
 */
function turnColumn(tx: TransactionSql) {
  return tx`case when m.source like 'conversation:%' then exists (
      select 1 from conversation_sessions s where s.tenant_id = m.tenant_id and s.lineage_id = m.lineage_id
    ) else false end as turn`;
}

/**
 * The given chunks with their memories, keeping only versions visible to the recall: current ones, or
 * those valid at `asOf` (spec service_recall_at_time: valid_from <= as_of < valid_to or unset), and
 * never failed ones. A conversation session's chunks are marked as turns (ADR 0530). The hit's
 * valid_from is its chunk's: the version's own, except for a conversation turn, which keeps its
 * message time (docs/ingest.md "Conversations"). A vector hit whose chunk is no longer current in
 * PostgreSQL drops out here (docs/ingest.md: PostgreSQL is authoritative).
 */
export async function readCandidateChunks(
  tx: TransactionSql,
  tenantId: string,
  chunkIds: readonly string[],
  asOf: Date | undefined,
  filter?: ResolvedRecallFilter,
): Promise<Map<string, CandidateChunk>> {
  if (chunkIds.length === 0) return new Map();
  const valid = asOf
    ? tx`m.valid_from <= ${asOf} and c.valid_from <= ${asOf} and (m.valid_to is null or m.valid_to > ${asOf})`
    : tx`m.valid_to is null and c.valid_to is null`;
  // Driven by the ids, one primary-key lookup each: LATERAL with OFFSET 0 keeps the planner from
  // flattening the lookups into a join it may order the other way round. It did: estimating one row
  // for a tenant its statistics do not know yet (a young or fast-growing tenant), it scanned every
  // memory of the tenant and probed its chunks — PostgreSQL time per recall 21 ms at 1,000
  // memories, 22 ms at 4,000 with plain LATERAL; growing with the tenant.
  const rows = await tx<Row[]>`
    select c.id as chunk_id, c.memory_id, c.content, m.title, m.memory_type, m.kind, m.source,
           c.valid_from, m.valid_to, m.created_at, ${pageColumns(tx)}, ${turnColumn(tx)}
    from unnest(${tx.array([...new Set(chunkIds)])}::uuid[]) as wanted(id)
    cross join lateral (
      select c.id, c.memory_id, c.content, c.valid_from, c.valid_to, c.char_start, c.char_end from chunks c
      where c.id = wanted.id and c.tenant_id = ${tenantId} offset 0
    ) c
    cross join lateral (
      select * from memories m where m.id = c.memory_id and m.tenant_id = ${tenantId} offset 0
    ) m
    where m.status <> 'failed' and ${valid} and ${filter === undefined ? tx`true` : filter.sql(tx)}`;
  return new Map(rows.map((r) => [r.chunk_id, toCandidate(r)]));
}

/**
 * The first chunk of each memory: what stands for a memory reached only over the graph. With a
 * filter, memories that do not match it are left out (ADR 0220: neighbours must match too).
 */
export async function readFirstChunks(
  tx: TransactionSql,
  tenantId: string,
  memoryIds: readonly string[],
  filter?: ResolvedRecallFilter,
): Promise<Map<string, CandidateChunk>> {
  if (memoryIds.length === 0) return new Map();
  // A memory without chunks (nothing indexed yet) still has its content.
  const rows = await tx<Row[]>`
    select distinct on (m.id) coalesce(c.id, m.id) as chunk_id, m.id as memory_id,
           coalesce(c.content, m.content) as content, m.title, m.memory_type, m.kind, m.source,
           m.valid_from, m.valid_to, m.created_at, ${pageColumns(tx)}, false as turn
    from unnest(${tx.array([...new Set(memoryIds)])}::uuid[]) as wanted(id)
    cross join lateral (
      select * from memories m where m.id = wanted.id and m.tenant_id = ${tenantId} offset 0
    ) m
    left join chunks c on c.memory_id = m.id and c.tenant_id = m.tenant_id
    where m.status <> 'failed' and ${filter === undefined ? tx`true` : filter.sql(tx)}
    order by m.id, c.ordinal`;
  return new Map(rows.map((r) => [r.memory_id, toCandidate(r)]));
}
