import { useEffect } from 'preact/hooks';
import { PERIOD_LABELS, PERIOD_SHORTCUTS } from '../state/periods.js';
import { period, updateView, view } from '../state/store.js';
import { Modal } from './Modal.js';

const PERIOD_OF = new Map(PERIOD_SHORTCUTS);

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName));
}

/** Period letters, x (compare on/off), ? (this help); never while typing or in a dialog. */
export function useShortcuts(openHelp: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || document.querySelector('dialog[open]')) return;
      if (e.key === '?') {
        e.preventDefault();
        openHelp();
        return;
      }
      const key = e.key.toLowerCase();
      if (key === 'x') {
        updateView({ compare: view.value.compare === 'off' ? 'previous' : 'off' });
        return;
      }
      const next = PERIOD_OF.get(key);
      if (!next) return;
      e.preventDefault();
      if (next === 'custom') {
        updateView({ period: 'custom', from: period.value.start, to: period.value.end, interval: undefined });
        return;
      }
      updateView({
        period: next,
        interval: undefined,
        from: undefined,
        to: undefined,
        ...(next === 'realtime' && view.value.compare === 'year' ? { compare: 'previous' as const } : {}),
      });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose}>
      <table class="data-table shortcuts">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {PERIOD_SHORTCUTS.map(([key, p]) => (
            <tr key={key}>
              <td>
                <kbd>{key.toUpperCase()}</kbd>
              </td>
              <td>{PERIOD_LABELS[p]}</td>
            </tr>
          ))}
          <tr>
            <td>
              <kbd>X</kbd>
            </td>
            <td>Compare with the previous period on / off</td>
          </tr>
          <tr>
            <td>
              <kbd>Esc</kbd>
            </td>
            <td>Clear all filters (or close a dialog)</td>
          </tr>
          <tr>
            <td>
              <kbd>?</kbd>
            </td>
            <td>Show this help</td>
          </tr>
        </tbody>
      </table>
    </Modal>
  );
}
