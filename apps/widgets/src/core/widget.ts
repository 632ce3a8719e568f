import { fetchAnswer } from './fetch-answer.js';
import { formatter, type Formatter } from './format.js';
import { mount, type View } from './mount.js';
import { readOptions, warn, type WidgetOptions } from './options.js';
import { findTarget } from './target.js';

/**
 * What every widget shares: read the options from its own `<script>`, find the target,
 * mount the shadow root, then fetch and draw on a schedule — paused while the tab is
 * hidden, backing off on errors, stopped for good once the key is refused. A failure
 * shows the widget's quiet placeholder; nothing ever throws on the host page.
 */
export interface Drawing<A> {
  draw(answer: A): void;
  /** the quiet text shown instead of numbers (server unreachable, key revoked) */
  placeholder(): void;
}

export interface WidgetDefinition<A> {
  type: 'globe' | 'live-users' | 'map' | 'countries';
  refreshMs: number;
  parse(body: unknown): A | null;
  /** query parameters beyond the key */
  params(options: WidgetOptions): Record<string, string>;
  create(view: View, options: WidgetOptions, format: Formatter): Drawing<A>;
}

const FIRST_RETRY_MS = 15_000;
const MAX_BACKOFF_MS = 30 * 60_000;

/** 15 s after a first failure, doubling up to 30 minutes, ±20 % so a crowd of viewers spreads out. */
export function backoff(failures: number): number {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 16));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export function runWidget<A>(definition: WidgetDefinition<A>): void {
  try {
    const script = document.currentScript;
    if (!(script instanceof HTMLScriptElement)) return warn('load the widget with a plain <script src> tag');
    const options = readOptions(script);
    if (!options) return;
    findTarget(script, options.target, (host) => {
      try {
        start(definition, options, host);
      } catch (error) {
        warn(`could not start: ${String(error)}`);
      }
    });
  } catch (error) {
    warn(`could not start: ${String(error)}`);
  }
}

function start<A>(definition: WidgetDefinition<A>, options: WidgetOptions, host: HTMLElement): void {
  const mounted = mount(host, options.theme, options.accent);
  if (!mounted) return warn('the target element already holds a widget');
  const view = mounted;
  view.setState('loading');
  const drawing = definition.create(view, options, formatter(options.locale));
  const query = new URLSearchParams({ key: options.key, ...definition.params(options) });
  const url = `${options.api}/api/v1/widgets/${definition.type}?${query}`;

  let failures = 0;
  let due = false;
  let stopped = false;
  const schedule = (ms: number) => setTimeout(() => void tick(), ms);

  async function tick(): Promise<void> {
    if (document.visibilityState === 'hidden') {
      due = true;
      return;
    }
    const outcome = await fetchAnswer(url);
    if (outcome.kind === 'ok') {
      const answer = definition.parse(outcome.body);
      if (answer !== null) {
        failures = 0;
        guarded(() => drawing.draw(answer));
        view.setState('ready');
        schedule(definition.refreshMs);
        return;
      }
    }
    guarded(() => drawing.placeholder());
    view.setState('error');
    if (outcome.kind === 'gone') {
      stopped = true;
      return;
    }
    failures += 1;
    schedule(Math.max(backoff(failures), outcome.kind === 'retry' ? outcome.retryAfterMs : 0));
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && due && !stopped) {
      due = false;
      void tick();
    }
  });
  void tick();
}

function guarded(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    warn(`could not draw: ${String(error)}`);
  }
}
