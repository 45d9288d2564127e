/** A failure the operator can fix: printed as one line on stderr, exit code 1 (2 for usage). */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
