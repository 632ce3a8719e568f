/**
 * tagged-events: a click on (or inside) an element with `data-sightline-event="Name"`
 * sends event `Name`; each `data-sightline-event-<prop>="value"` attribute becomes
 * `p.<prop>`.
 */
import { doc } from '../core/globals.js';
import { send } from '../core/send.js';

doc.addEventListener('click', (event) => {
  const element = (event.target as Element).closest('[data-sightline-event]');
  if (!element) return;
  const props: Record<string, string> = {};
  for (const attribute of element.attributes) {
    const prop = /^data-sightline-event-(.+)/.exec(attribute.name);
    if (prop) props[prop[1]!] = attribute.value;
  }
  send(element.getAttribute('data-sightline-event')!, { p: props });
});
