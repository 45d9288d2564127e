import { inSpan } from "../../lib/tracing/tracer.js";

/** Per-stage timings for RecallResponse.timings (wall clock; stages that overlap each count in full). */
export interface StageTiming {
  readonly stage: string;
  readonly ms: number;
}

export function createStageTimer() {
  const timings: StageTiming[] = [];
  return {
    async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
      const started = performance.now();
      try {
        // One trace span per stage (no cost with tracing off).
        return await inSpan(`recall.${stage}`, {}, () => work());
      } finally {
        timings.push({ stage, ms: performance.now() - started });
      }
    },
    record(stage: string, ms: number): void {
      timings.push({ stage, ms });
    },
    timings: (): StageTiming[] => [...timings],
  };
}

export type StageTimer = ReturnType<typeof createStageTimer>;
