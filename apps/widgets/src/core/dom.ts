/** A tiny element builder: text only ever goes in as text, attributes from our own code. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string> = {}): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

/** The DB-IP credit, required where locations are drawn (its CC BY 4.0 licence). */
export function credit(): HTMLElement {
  return el('p', { class: 'credit' }, el('a', { href: 'https://db-ip.com', target: '_blank', rel: 'noopener noreferrer' }, 'IP geolocation by DB-IP'));
}

export function reducedMotion(): MediaQueryList {
  return matchMedia('(prefers-reduced-motion: reduce)');
}
