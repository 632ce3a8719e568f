import type { Bus } from '@sightline/bus';
import type { Logger } from '@sightline/telemetry';
import type { PendingImports } from './pending-imports.js';
import { reportProgress } from './import-progress.js';
import type { ImportRun, ImportStore } from './import-store.js';
import { receiveImport, type ImportHeader } from './receive-import.js';
import { spoolUpload, type SpooledUpload } from './upload-spool.js';
import { UploadStopped } from './upload-stopped.js';
import { writeImport } from './write-import.js';

/**
 * Ingest's side of imports: receives uploads into staging, then writes staged imports
 * one at a time in the background (bounded CPU and memory however many arrive).
 *
 * Crash safety: a completed upload is recorded as run state 'staged' BEFORE the
 * client hears 202; at start-up every 'staged' run is written again from staging
 * (writeImport first deletes what the interrupted attempt wrote), and staged rows of
 * an upload that never finished are dropped and its job reported failed.
 */
export class ImportRunner {
  #queue: ImportRun[] = [];
  #working: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly store: ImportStore,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly clock: () => number,
    /** this ingest replica's index: it resumes only the imports it staged */
    private readonly replica = 0,
    /** a PostgreSQL mirror of which runs are still staged (start-up reads it); none in unit tests */
    private readonly pending?: PendingImports,
  ) {}

  /**
   * The upload of one import; resolves once it is staged (and queued for writing).
   * The body is spooled to a file first and staged only once it has ended whole: an
   * upload stopped before its end touches neither staging nor the events engine.
   */
  async receive(header: ImportHeader, chunks: AsyncIterable<Buffer>): Promise<ImportRun> {
    let spooled: SpooledUpload;
    try {
      spooled = await spoolUpload(chunks);
    } catch (error) {
      // the client went away or the body passed the limit: nothing was staged, so nothing to remove
      await this.#reportStopped(header, error);
      throw error;
    }
    let run: ImportRun;
    try {
      run = await receiveImport(this.store, { ...header, replica: this.replica }, spooled.read(), this.clock);
    } catch (error) {
      // a store failure while staging: nothing of it is kept
      await this.store.deleteImportRows(header.siteId, header.importId).catch(() => {});
      const failed = this.#failedRun(header);
      await this.store.recordRun(failed, this.clock()).catch(() => {});
      await this.pending?.note(failed).catch(() => {});
      await this.#reportStopped(header, error);
      throw error;
    } finally {
      await spooled.remove();
    }
    await this.store.recordRun(run, this.clock());
    await this.pending?.note(run);
    if (run.state === 'failed') {
      await reportProgress(this.bus, run, 'failed', this.clock(), 'No line of the upload was a valid event.');
    } else {
      // the counts are known now; the job says so while it waits for the writer
      await reportProgress(this.bus, run, 'queued', this.clock());
      this.#enqueue(run);
    }
    return run;
  }

  /**
   * Start-up: re-run this replica's staged imports, fail its uploads that never
   * finished. Another replica's are not touched: they may be running right now.
   */
  async resume(store: ImportStore = this.store): Promise<void> {
    for (const orphan of await store.orphanStaging(this.replica)) {
      const failed: ImportRun = {
        import_id: Number(orphan.import_id),
        site_id: Number(orphan.site_id),
        replica: this.replica,
        format: '',
        state: 'failed',
        accepted: 0,
        rejected: 0,
        errors: [],
        range_start: 0,
        range_end: 0,
      };
      await store.deleteImportRows(failed.site_id, failed.import_id);
      await store.recordRun(failed, this.clock());
      await this.pending?.note(failed);
      await reportProgress(this.bus, failed, 'failed', this.clock(), 'upload interrupted by a restart; nothing was imported. Upload the file again.');
    }
    for (const run of await store.stagedRuns(this.replica)) {
      this.log.warn({ import_id: run.import_id }, 'resuming an import interrupted by a restart');
      this.#enqueue(run);
    }
  }

  /** DELETE …/imports/{id}: the rows go now; a write in progress notices and stops. */
  async delete(siteId: number, importId: number): Promise<void> {
    const run = await this.store.run(importId);
    if (run && run.site_id !== siteId) return; // another site's import: not this caller's to touch
    this.#queue = this.#queue.filter((queued) => queued.import_id !== importId);
    if (run) {
      await this.store.recordRun({ ...run, state: 'deleted' }, this.clock());
      await this.pending?.note({ ...run, state: 'deleted' });
    }
    await this.store.deleteImportRows(siteId, importId);
  }

  /** site.deleted: every import of the site, staged or written. */
  async deleteSite(siteId: number): Promise<void> {
    this.#queue = this.#queue.filter((queued) => queued.site_id !== siteId);
    const ids = await this.store.deleteSiteImports(siteId);
    for (const id of ids) {
      const run = await this.store.run(id);
      if (run && run.state !== 'deleted') {
        await this.store.recordRun({ ...run, state: 'deleted' }, this.clock());
        await this.pending?.note({ ...run, state: 'deleted' });
      }
    }
  }

  /** Resolves when nothing is queued or being written (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.#working) await this.#working;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queue = [];
    await this.#working;
  }

  /** The job fails with why its upload stopped (UploadStopped says it), nothing imported. */
  async #reportStopped(header: ImportHeader, error: unknown): Promise<void> {
    const failed = this.#failedRun(header);
    const failure =
      error instanceof UploadStopped
        ? error.failure
        : 'upload interrupted: it could not be read or staged to its end; nothing was imported. Upload the file again.';
    await reportProgress(this.bus, failed, 'failed', this.clock(), failure).catch(() => {});
  }

  #failedRun(header: ImportHeader): ImportRun {
    return {
      import_id: header.importId,
      site_id: header.siteId,
      replica: this.replica,
      format: header.format,
      state: 'failed',
      accepted: 0,
      rejected: 0,
      errors: [],
      range_start: 0,
      range_end: 0,
    };
  }

  #enqueue(run: ImportRun): void {
    this.#queue.push(run);
    if (!this.#working) this.#working = this.#drain().finally(() => (this.#working = undefined));
  }

  async #drain(): Promise<void> {
    while (!this.#stopped) {
      const run = this.#queue.shift();
      if (!run) return;
      await this.#write(run);
    }
  }

  async #write(staged: ImportRun): Promise<void> {
    const stillWanted = async () => !this.#stopped && (await this.store.run(staged.import_id))?.state === 'staged';
    try {
      if (!(await stillWanted())) return;
      await reportProgress(this.bus, staged, 'running', this.clock());
      const outcome = await writeImport(this.store, staged, stillWanted);
      if (!outcome.done) return;
      // deleted while the last page was written? then its rows go again
      if (!(await stillWanted())) {
        if (!this.#stopped) await this.store.deleteImportRows(staged.site_id, staged.import_id);
        return;
      }
      const { run } = outcome;
      await this.store.recordRun(run, this.clock());
      await this.pending?.note(run);
      await this.store.deleteImportRows(run.site_id, run.import_id, { keepStaging: false, onlyStaging: true });
      await reportProgress(
        this.bus,
        run,
        run.state === 'completed' ? 'completed' : 'failed',
        this.clock(),
        run.state === 'failed' ? 'No event of the upload could be placed in a session.' : '',
      );
    } catch (error) {
      // left 'staged': the next start-up (or a retry) writes it again from the start
      this.log.error({ err: error, import_id: staged.import_id }, 'writing an import failed; it is retried at the next start');
    }
  }
}
