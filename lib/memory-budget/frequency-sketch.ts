/**
 * How often each key was asked for lately, approximately: a count-min sketch of 4-bit counters with
 * periodic halving (TinyLFU, Einziger et al. 2017; Caffeine's FrequencySketch). Constant memory
 * whatever the number of keys seen — an instance with a million workspaces remembers their
 * popularity in a few hundred kilobytes — and old popularity fades, so a once-hot workspace that went
 * quiet does not keep its place forever.
 */
export class FrequencySketch {
  private readonly table: Uint8Array;
  private readonly mask: number;
  private readonly sampleSize: number;
  private additions = 0;

  /** `expectedKeys`: about how many distinct keys compete (sizes the table; more only costs memory). */
  constructor(expectedKeys: number) {
    let width = 64;
    while (width < expectedKeys * 2 && width < 2 ** 24) width *= 2;
    this.table = new Uint8Array(width);
    this.mask = width - 1;
    this.sampleSize = 10 * width;
  }

  /** The estimated count of `key` (0–15). */
  frequency(key: string): number {
    let min = 15;
    for (let row = 0; row < 4; row++) min = Math.min(min, this.table[this.slot(key, row)] as number);
    return min;
  }

  /** Counts one access of `key`; every sampleSize additions all counters are halved. */
  increment(key: string): void {
    const current = this.frequency(key);
    if (current >= 15) return;
    // Conservative update: only the counters at the minimum grow, which keeps over-estimates small.
    for (let row = 0; row < 4; row++) {
      const at = this.slot(key, row);
      if (this.table[at] === current) this.table[at] = current + 1;
    }
    if (++this.additions >= this.sampleSize) this.age();
  }

  private age(): void {
    for (let i = 0; i < this.table.length; i++) this.table[i] = (this.table[i] as number) >>> 1;
    this.additions = Math.floor(this.additions / 2);
  }

  /** FNV-1a with a per-row seed, finished with a multiply-xorshift so nearby keys spread. */
  private slot(key: string, row: number): number {
    let h = (0x811c9dc5 ^ Math.imul(row + 1, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return (h >>> 0) & this.mask;
  }
}
