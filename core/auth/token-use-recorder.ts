import type { Database } from "../store/database.js";

/** Writes a token's last_used_at at most once per `touchIntervalMs` per token and process. */
export class TokenUseRecorder {
  readonly #lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly touchIntervalMs: number,
    private readonly now: () => number,
  ) {}

  touch(tokenId: string): void {
    const t = this.now();
    if ((this.#lastTouched.get(tokenId) ?? 0) > t - this.touchIntervalMs) return;
    this.#lastTouched.set(tokenId, t);
    this.db.sql`update api_tokens set last_used_at = now()
           where id = ${tokenId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`.catch(
      () => this.#lastTouched.delete(tokenId),
    );
  }

  forget(tokenId: string): void {
    this.#lastTouched.delete(tokenId);
  }
}
