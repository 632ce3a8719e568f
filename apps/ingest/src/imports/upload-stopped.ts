/**
 * An upload that ended without its whole body: the client went away before the
 * declared end, or the gateway refused it past IMPORT_MAX_BYTES. Nothing of it is
 * kept; `failure` is what the job record says.
 */
export class UploadStopped extends Error {
  constructor(readonly failure: string) {
    super(failure);
    this.name = 'UploadStopped';
  }
}

export const uploadInterrupted = (): UploadStopped =>
  new UploadStopped('upload interrupted: the body ended before its declared end; nothing was imported. Upload the file again.');

export const uploadTooLarge = (maxBytes: number): UploadStopped =>
  new UploadStopped(`upload exceeds IMPORT_MAX_BYTES (${maxBytes} bytes); nothing was imported. Split the history into several imports.`);
