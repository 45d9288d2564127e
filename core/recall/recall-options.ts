import type { RecallFilter } from "./filter/recall-filter.js";

/** One recall as the service runs it (spec "Recall request", RecallRequest). */
export interface RecallOptions {
  readonly query: string;
  /** Hits to return (spec: 1 to 25, default 5). */
  readonly k: number;
  /** Graph hops from the best seeds (spec: 0 to 3, default 2). */
  readonly hops: number;
  /** Point-in-time recall; unset: current versions. */
  readonly asOf?: Date;
  readonly stages: RecallStageSwitches;
  /** Return per hit each stage's view of it (RecalledMemory.explanation); off: nothing is collected. */
  readonly explain?: boolean;
  /** Only memories matching it are recalled, applied inside each channel (ADR 0220); unset: all. */
  readonly filter?: RecallFilter;
}

/** Pipeline stages that run (RecallStages in the proto switches them off for evaluation). */
export interface RecallStageSwitches {
  readonly fulltext: boolean;
  readonly vector: boolean;
  readonly graph: boolean;
  readonly rerank: boolean;
}

export const ALL_STAGES: RecallStageSwitches = { fulltext: true, vector: true, graph: true, rerank: true };

export const DEFAULT_K = 5;
export const DEFAULT_HOPS = 2;
