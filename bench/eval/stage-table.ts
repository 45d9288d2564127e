/** One set's nDCG@10 per stage, as the all-sets table needs it. */
export interface SetScores {
  readonly dataset: string;
  readonly queries: number;
  readonly ndcg: Readonly<Record<string, number>>;
}

export interface StageTable {
  readonly text: string;
  /** Per set: full − max(bm25, vector) and full − bm25 (undefined where a stage did not run). */
  readonly margins: Record<string, { readonly overBest?: number; readonly overBm25?: number }>;
  /** Minimum over sets of full − best single channel. */
  readonly minOverBest?: number;
  readonly minOverBm25?: number;
}

const f3 = (x: number | undefined) => (x === undefined ? "—" : x.toFixed(3));
const signed = (x: number | undefined) => (x === undefined ? "—" : `${x >= 0 ? "+" : ""}${x.toFixed(3)}`);

/**
 * The `--all` table: stages as rows, sets as columns (nDCG@10), then full − best single channel and
 * full − BM25 per set, and the minimum of each over the sets (the requirement: ≥ −0.005 and ≥ 0).
 */
export function formatStageTable(sets: readonly SetScores[], stages: readonly string[]): StageTable {
  const width = Math.max(9, ...sets.map((s) => s.dataset.length + 1));
  const cell = (text: string) => text.padStart(width);
  const lines = [
    `${"stage".padEnd(16)}${sets.map((s) => cell(s.dataset)).join("")}`,
    `${"queries".padEnd(16)}${sets.map((s) => cell(String(s.queries))).join("")}`,
  ];
  for (const stage of stages) {
    lines.push(`${stage.padEnd(16)}${sets.map((s) => cell(f3(s.ndcg[stage]))).join("")}`);
  }
  const margins: StageTable["margins"] = {};
  for (const s of sets) {
    const { full, bm25, vector } = s.ndcg;
    const best = bm25 === undefined && vector === undefined ? undefined : Math.max(bm25 ?? 0, vector ?? 0);
    margins[s.dataset] = {
      ...(full !== undefined && best !== undefined ? { overBest: full - best } : {}),
      ...(full !== undefined && bm25 !== undefined ? { overBm25: full - bm25 } : {}),
    };
  }
  lines.push(
    `${"full − best".padEnd(16)}${sets.map((s) => cell(signed(margins[s.dataset]?.overBest))).join("")}`,
  );
  lines.push(
    `${"full − bm25".padEnd(16)}${sets.map((s) => cell(signed(margins[s.dataset]?.overBm25))).join("")}`,
  );
  const minOf = (pick: (m: { overBest?: number; overBm25?: number }) => number | undefined) => {
    const values = Object.values(margins).flatMap((m) => {
      const v = pick(m);
      return v === undefined ? [] : [v];
    });
    return values.length === 0 ? undefined : Math.min(...values);
  };
  const minOverBest = minOf((m) => m.overBest);
  const minOverBm25 = minOf((m) => m.overBm25);
  lines.push(
    `min over sets: full − best single channel ${signed(minOverBest)}, full − bm25 ${signed(minOverBm25)}`,
  );
  return {
    text: `${lines.join("\n")}\n`,
    margins,
    ...(minOverBest !== undefined ? { minOverBest } : {}),
    ...(minOverBm25 !== undefined ? { minOverBm25 } : {}),
  };
}
