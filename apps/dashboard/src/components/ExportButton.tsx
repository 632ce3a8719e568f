import { useState } from 'preact/hooks';
import { buildExport } from '../export.js';
import { client, period, siteInfo, view } from '../state/store.js';

/** CSV of the current view: every panel's rows, one file per tab, zipped, downloaded. */
export function ExportButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { name, zip } = await buildExport(client(), view.value, period.value, siteInfo.value?.domain ?? 'site', siteInfo.value?.timezone);
      const url = URL.createObjectURL(new Blob([zip as Uint8Array<ArrayBuffer>], { type: 'application/zip' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : 'Export failed.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy ? 'true' : 'false'}>
        {busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </>
  );
}
