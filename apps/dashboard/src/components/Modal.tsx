import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let nextId = 0;

/**
 * A modal <dialog> (the browser traps focus, Esc closes, focus returns to the
 * opener): titled, with a Close button.
 */
export function Modal({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useRef(`dialog-title-${++nextId}`);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog ref={ref} class={wide ? 'modal wide' : 'modal'} aria-labelledby={id.current}>
      <div class="modal-head">
        <h2 id={id.current}>{title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}
