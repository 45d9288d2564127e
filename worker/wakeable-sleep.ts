/** A sleep that another part of the process can end early; a wake-up while no one sleeps ends the next sleep at once. */
export class WakeableSleep {
  #wakeUp: (() => void) | undefined;
  #woken = false;

  wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#woken = true;
  }

  /** Sleeps `ms` unless woken; `onTimeout` runs when the full time passed (not when woken). */
  sleep(ms: number, onTimeout: () => void): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#woken) {
        this.#woken = false;
        return resolve();
      }
      const timer = setTimeout(() => {
        this.#wakeUp = undefined;
        onTimeout();
        resolve();
      }, ms);
      this.#wakeUp = () => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
    });
  }
}
