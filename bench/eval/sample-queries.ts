import { createHash } from "node:crypto";

/** What stratified sampling needs of a query: its id and the strata it belongs to. */
export interface SampleableQuery {
  readonly id: string;
  readonly group: string;
  readonly lang: string;
}

const rankKey = (seed: string, id: string) => createHash("sha1").update(`${seed}\u0000${id}`).digest("hex");

/**
 * A deterministic sample of `limit` queries spread over every (group, language) stratum in proportion
 * to its size (largest remainders get the leftover places; every stratum with queries gets at least one
 * while places last), each stratum's picks chosen by a seeded hash of the query id — not the first N,
 * which for grouped or bilingual sets is one conversation or one language. The sample keeps the
 * queries' original order. The same ids and seed always give the same sample.
 */
export function sampleQueries<Q extends SampleableQuery>(
  queries: readonly Q[],
  limit: number,
  seed = "eval",
): Q[] {
  if (!(limit < queries.length)) return [...queries];
  if (limit <= 0) return [];
  const strata = new Map<string, Q[]>();
  for (const q of queries) {
    const key = `${q.group}\u0000${q.lang}`;
    const members = strata.get(key);
    if (members === undefined) strata.set(key, [q]);
    else members.push(q);
  }
  const keys = [...strata.keys()].sort();
  const quota = new Map<string, number>();
  let placed = 0;
  const remainders: { key: string; rest: number }[] = [];
  for (const key of keys) {
    const exact = ((strata.get(key)?.length ?? 0) * limit) / queries.length;
    quota.set(key, Math.floor(exact));
    placed += Math.floor(exact);
    remainders.push({ key, rest: exact - Math.floor(exact) });
  }
  // Leftover places: strata without a pick first, then the largest remainders; ties by key.
  remainders.sort(
    (a, b) =>
      Number((quota.get(a.key) ?? 0) > 0) - Number((quota.get(b.key) ?? 0) > 0) ||
      b.rest - a.rest ||
      (a.key < b.key ? -1 : 1),
  );
  for (const { key } of remainders) {
    if (placed >= limit) break;
    quota.set(key, (quota.get(key) ?? 0) + 1);
    placed++;
  }
  const chosen = new Set<string>();
  for (const key of keys) {
    const members = strata.get(key) ?? [];
    const ranked = members
      .map((q) => ({ q, r: rankKey(seed, q.id) }))
      .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0));
    for (const { q } of ranked.slice(0, quota.get(key) ?? 0)) chosen.add(q.id);
  }
  return queries.filter((q) => chosen.has(q.id));
}
