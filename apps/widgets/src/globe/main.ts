import createGlobe from 'cobe';
import { parseGlobe, type GlobeAnswer } from '../core/answers.js';
import { countryList } from '../core/country-list.js';
import { credit, el, reducedMotion } from '../core/dom.js';
import { runWidget } from '../core/widget.js';
import { markerSize, pulseScale, rotationToward } from './markers.js';

/**
 * globe: visitors of the last 30 minutes as markers on a rotating WebGL globe (cobe),
 * one per city (never finer), sized by visitors; a marker pulses for a few seconds
 * when its city has more visitors than in the previous answer. prefers-reduced-motion: no
 * rotation and no pulse (the globe faces the busiest city). Without WebGL it shows the
 * top countries as a list instead. Refreshed every 30 s.
 */
const PULSE_MS = 3000;

runWidget<GlobeAnswer>({
  type: 'globe',
  refreshMs: 30_000,
  parse: parseGlobe,
  params: () => ({}),
  create(view, options, format) {
    const width = Math.round(options.size || Math.min(800, Math.max(160, view.host.clientWidth - 30 || 320)));
    const ratio = Math.min(2, window.devicePixelRatio || 1);
    const frame = el('div', { class: 'globe', role: 'img' });
    frame.style.setProperty('width', `${width}px`);
    frame.style.setProperty('max-width', '100%');
    const canvas = el('canvas', { width: String(width * ratio), height: String(width * ratio) });
    frame.append(canvas);
    const caption = el('p', { class: 'title' });
    const still = reducedMotion();
    const dark = view.body.classList.contains('dark') || (view.body.classList.contains('auto') && matchMedia('(prefers-color-scheme: dark)').matches);

    let globe: ReturnType<typeof createGlobe> | null = null;
    let fallback = !webgl();
    let phi = 0;
    let theta = 0.3;
    let pulses = new Map<string, number>();
    let answer: GlobeAnswer | null = null;
    let frameRequest = 0;

    const markers = (now: number) => {
      const max = Math.max(1, ...(answer?.locations ?? []).map((l) => l.visitors));
      return (answer?.locations ?? []).map((l) => {
        const started = pulses.get(`${l.lat},${l.lon}`);
        const scale = started === undefined || still.matches ? 1 : pulseScale(now - started, PULSE_MS);
        return { location: [l.lat, l.lon] as [number, number], size: markerSize(l.visitors, max) * scale };
      });
    };
    const render = (now: number) => globe?.update({ phi, theta, markers: markers(now) });
    const loop = (now: number) => {
      frameRequest = 0;
      if (!globe || still.matches || document.visibilityState === 'hidden') return;
      phi += 0.003;
      render(now);
      frameRequest = requestAnimationFrame(loop);
    };
    const animate = () => {
      if (still.matches) {
        if (frameRequest) cancelAnimationFrame(frameRequest);
        frameRequest = 0;
        render(performance.now());
      } else if (!frameRequest) frameRequest = requestAnimationFrame(loop);
    };
    still.addEventListener('change', animate);
    document.addEventListener('visibilitychange', animate);

    const start = () => {
      if (globe || fallback) return;
      try {
        globe = createGlobe(canvas, {
          devicePixelRatio: ratio,
          width: width * ratio,
          height: width * ratio,
          phi,
          theta,
          dark: dark ? 1 : 0,
          diffuse: 1.2,
          mapSamples: 12000,
          mapBrightness: dark ? 4 : 6,
          baseColor: dark ? [0.3, 0.3, 0.35] : [0.95, 0.95, 0.97],
          markerColor: accentRgb(getComputedStyle(view.body).getPropertyValue('--accent')),
          glowColor: dark ? [0.2, 0.2, 0.25] : [0.9, 0.9, 0.95],
          markers: [],
          markerElevation: 0,
        });
      } catch {
        fallback = true;
      }
    };

    return {
      draw(next) {
        const now = performance.now();
        // a city pulses when it has more visitors than in the previous answer (or is new)
        const before = new Map((answer?.locations ?? []).map((l) => [`${l.lat},${l.lon}`, l.visitors]));
        pulses = new Map([...pulses].filter(([, t]) => now - t < PULSE_MS));
        if (answer) for (const l of next.locations) if (l.visitors > (before.get(`${l.lat},${l.lon}`) ?? 0)) pulses.set(`${l.lat},${l.lon}`, now);
        answer = next;
        const places = next.locations.length;
        const summary = `${format.number(next.visitors)} visitors in the last 30 minutes`;
        caption.textContent = summary;
        const top = next.countries.slice(0, 5).map((c) => `${format.country(c.code, c.name)} ${format.number(c.visitors)}`);
        frame.setAttribute(
          'aria-label',
          `Globe of ${summary} from ${format.number(places)} ${places === 1 ? 'place' : 'places'}${top.length ? `; ${top.join(', ')}` : ''}`,
        );
        start();
        if (fallback) {
          view.body.replaceChildren(caption, countryList(next.countries, format), credit());
          return;
        }
        if (!view.body.contains(frame)) view.body.replaceChildren(caption, frame, credit());
        if (answer.locations.length > 0 && (phi === 0 || still.matches)) {
          const busiest = answer.locations.reduce((a, b) => (b.visitors > a.visitors ? b : a));
          [phi, theta] = rotationToward(busiest.lat, busiest.lon);
        }
        animate();
      },
      placeholder: () => view.body.replaceChildren(el('p', { class: 'placeholder' }, 'Live visitor locations are unavailable right now.')),
    };
  },
});

function webgl(): boolean {
  try {
    return !!document.createElement('canvas').getContext('webgl');
  } catch {
    return false;
  }
}

/** '#rrggbb' (or the theme's default) as cobe's 0–1 RGB. */
function accentRgb(value: string): [number, number, number] {
  const hex = /#([0-9a-f]{6})/i.exec(value)?.[1] ?? '4f46e5';
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
}
