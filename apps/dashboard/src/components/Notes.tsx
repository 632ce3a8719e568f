import type { ApiFailure } from '../api/client.js';

/** One panel's failure, shown in that panel only (code and request id for support). */
export function ErrorNote({ error }: { error: ApiFailure }) {
  return (
    <p class="error panel-error" role="alert">
      {error.message}{' '}
      <span class="error-code">
        ({error.code}
        {error.request_id ? `, request ${error.request_id}` : ''})
      </span>
    </p>
  );
}

/** The API said the window overlaps imported data (has_import). */
export function ImportedBadge() {
  return (
    <span class="imported-badge" title="Numbers include data imported from another analytics product">
      Includes imported data
    </span>
  );
}
