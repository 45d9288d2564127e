import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Lowers the calling thread's priority (raises its niceness) without touching the rest of the process.
 * On Linux a niceness belongs to a thread: setpriority(PRIO_PROCESS, tid) changes only that thread, and
 * `/proc/thread-self` names the calling thread's id. Answers whether it took effect: elsewhere (no
 * /proc) or where lowering is not allowed it does nothing — never fatal, the work runs as before.
 */
export function lowerThreadPriority(niceness: number): boolean {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
