import type { Db } from '@sightline/db';

/**
 * Which imports this replica has staged but not finished, kept in PostgreSQL
 * (`ingest.pending_imports`) beside the run records in the events store: start-up
 * can then tell whether an import must be resumed without loading an embedded
 * events engine that would otherwise stay idle.
 */
export class PendingImports {
  constructor(private readonly db: Db) {}

  /** Records the run's state: 'staged' is pending; any other state is not. */
  async note(run: { import_id: number; replica: number; state: string }): Promise<void> {
    if (run.state === 'staged') {
      await this.db.query(
        'INSERT INTO ingest.pending_imports (import_id, replica) VALUES ($1, $2) ON CONFLICT (import_id) DO UPDATE SET replica = EXCLUDED.replica, noted_at = now()',
        [run.import_id, run.replica],
      );
    } else {
      await this.db.query('DELETE FROM ingest.pending_imports WHERE import_id = $1', [run.import_id]);
    }
  }

  async any(replica: number): Promise<boolean> {
    const { rows } = await this.db.query<{ pending: boolean }>('SELECT EXISTS (SELECT 1 FROM ingest.pending_imports WHERE replica = $1) AS pending', [replica]);
    return rows[0]?.pending === true;
  }
}
