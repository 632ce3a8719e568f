/** A migration run stopped: `file` names the migration at fault (or '' for the directory itself). */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';

  constructor(
    message: string,
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
