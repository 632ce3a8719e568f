import vm from 'node:vm';

/**
 * A minimal fake browser for running a built tracker bundle in node's `vm`: just
 * the globals the tracker touches (window, document, location, history,
 * navigator, sessionStorage, performance, fetch), with real URL parsing and event
 * dispatch (element → ancestors → document → window). Sent requests are captured.
 */

type Listener = (event: FakeEvent) => void;

export interface FakeEvent {
  type: string;
  target?: unknown;
  button?: number;
}

class Target {
  private listeners = new Map<string, Listener[]>();
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  removeEventListener(type: string, listener: Listener): void {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((l) => l !== listener),
    );
  }
  fire(event: FakeEvent): void {
    for (const listener of this.listeners.get(event.type) ?? []) listener(event);
  }
}

/** Selectors the tracker uses: `tag`, `[attr]`, `tag[attr]`. */
function matches(element: FakeElement, selector: string): boolean {
  const m = /^([a-z]*)(?:\[([\w-]+)\])?$/.exec(selector);
  if (!m) throw new Error(`fake browser: unsupported selector ${selector}`);
  return (!m[1] || element.tagName.toLowerCase() === m[1]) && (!m[2] || element.hasAttribute(m[2]));
}

export class FakeElement extends Target {
  readonly attributes: Array<{ name: string; value: string }> = [];
  readonly children: FakeElement[] = [];
  constructor(
    readonly tagName: string,
    readonly parent: FakeElement | undefined,
    private readonly browser: FakeBrowser,
  ) {
    super();
    parent?.children.push(this);
  }
  getAttribute(name: string): string | null {
    return this.attributes.find((a) => a.name === name)?.value ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null;
  }
  setAttribute(name: string, value: string): void {
    const existing = this.attributes.find((a) => a.name === name);
    if (existing) existing.value = value;
    else this.attributes.push({ name, value });
  }
  closest(selector: string): FakeElement | null {
    for (let e: FakeElement | undefined = this; e; e = e.parent) if (matches(e, selector)) return e;
    return null;
  }
  /** anchors: the href resolved against the page, like HTMLAnchorElement */
  private get url(): URL | undefined {
    const raw = this.getAttribute('href');
    return raw === null ? undefined : new URL(raw, this.browser.url);
  }
  get href(): string {
    return this.url?.href ?? '';
  }
  get host(): string {
    return this.url?.host ?? '';
  }
  get protocol(): string {
    return this.url?.protocol ?? ':';
  }
  get pathname(): string {
    return this.url?.pathname ?? '';
  }
}

export interface Sent {
  via: 'fetch' | 'beacon';
  endpoint: string;
  init?: { method?: string; keepalive?: boolean; headers?: Record<string, string> };
  payload: Record<string, any>;
}

export interface BrowserOptions {
  url: string;
  referrer?: string;
  /** put `data-sightline-allow-localhost` on the script tag */
  allowLocalhost?: boolean;
  webdriver?: boolean;
  /** Navigation Timing responseStatus */
  status?: number;
  /** no window.fetch: the tracker must use sendBeacon */
  noFetch?: boolean;
  scrollHeight?: number;
  innerHeight?: number;
  /** the viewport width the tracker sends as `w`; unset: undefined, so payloads carry no `w` */
  innerWidth?: number;
}

export class FakeBrowser {
  url: URL;
  readonly sent: Sent[] = [];
  readonly window: Record<string, any>;
  readonly document: Target & Record<string, any>;
  readonly body: FakeElement;
  private now = 1_000;
  private focused = true;
  private hidden = false;
  readonly storage: Record<string, string> = {};

  constructor(readonly options: BrowserOptions) {
    this.url = new URL(options.url);
    const browser = this;
    const html = new FakeElement('HTML', undefined, this);
    this.body = new FakeElement('BODY', html, this);
    const script = new FakeElement('SCRIPT', html, this);
    if (options.allowLocalhost) script.setAttribute('data-sightline-allow-localhost', '');

    const document = new Target() as Target & Record<string, any>;
    Object.assign(document, {
      referrer: options.referrer ?? '',
      currentScript: script,
      documentElement: { scrollHeight: options.scrollHeight ?? 1_000 },
      hasFocus: () => browser.focused,
      querySelector: (selector: string) => {
        const walk = (e: FakeElement): FakeElement | null => (matches(e, selector) ? e : (e.children.map(walk).find(Boolean) ?? null));
        return walk(html);
      },
    });
    Object.defineProperty(document, 'hidden', { get: () => browser.hidden });
    Object.defineProperty(document, 'visibilityState', { get: () => (browser.hidden ? 'hidden' : 'visible') });
    this.document = document;

    const location = {};
    for (const key of ['href', 'origin', 'protocol', 'host', 'hostname', 'pathname', 'search', 'hash'] as const) {
      Object.defineProperty(location, key, { get: () => browser.url[key], enumerable: true });
    }
    const history = {
      pushState: (_state: unknown, _title: string, url?: string) => {
        if (url !== undefined) browser.url = new URL(url, browser.url);
      },
      replaceState: (_state: unknown, _title: string, url?: string) => {
        if (url !== undefined) browser.url = new URL(url, browser.url);
      },
    };
    const win = new Target() as Target & Record<string, any>;
    Object.assign(win, {
      document,
      location,
      history,
      navigator: {
        webdriver: options.webdriver ?? false,
        sendBeacon: (endpoint: string, body: string) => (browser.sent.push({ via: 'beacon', endpoint, payload: JSON.parse(body) }), true),
      },
      sessionStorage: this.storage,
      performance: {
        now: () => browser.now,
        getEntriesByType: (type: string) => (type === 'navigation' && options.status ? [{ responseStatus: options.status }] : []),
      },
      scrollY: 0,
      innerHeight: options.innerHeight ?? 500,
      innerWidth: options.innerWidth,
    });
    // bare `addEventListener(...)` in the script calls it without a receiver
    win.addEventListener = win.addEventListener.bind(win);
    win.removeEventListener = win.removeEventListener.bind(win);
    if (!options.noFetch) {
      win.fetch = (endpoint: string, init: { body: string; method: string; keepalive: boolean; headers: Record<string, string> }) => {
        browser.sent.push({
          via: 'fetch',
          endpoint,
          init: { method: init.method, keepalive: init.keepalive, headers: init.headers },
          payload: JSON.parse(init.body),
        });
        return Promise.resolve({ ok: true, status: 202 });
      };
    }
    win.window = win;
    this.window = win;
  }

  /** runs a tracker script in this page (a fresh vm context whose global is `window`) */
  run(code: string): this {
    vm.runInContext(code, vm.createContext(this.window));
    return this;
  }

  payloads(name?: string): Array<Record<string, any>> {
    return this.sent.map((s) => s.payload).filter((p) => name === undefined || p.n === name);
  }

  element(tagName: string, attributes: Record<string, string> = {}, parent: FakeElement = this.body): FakeElement {
    const element = new FakeElement(tagName.toUpperCase(), parent, this);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    return element;
  }

  click(target: FakeElement, type = 'click'): void {
    const event: FakeEvent = { type, target, button: 0 };
    for (let e: FakeElement | undefined = target; e; e = e.parent) e.fire(event);
    this.document.fire(event);
    this.window.fire(event);
  }

  advance(ms: number): void {
    this.now += ms;
  }

  pushState(url: string): void {
    this.window.history.pushState(null, '', url);
  }

  /** the back button: the URL changes, then popstate */
  back(url: string): void {
    this.url = new URL(url, this.url);
    this.window.fire({ type: 'popstate' });
  }

  /** a fragment navigation: popstate, then hashchange (as browsers do) */
  setHash(hash: string): void {
    this.url = new URL(hash, this.url);
    this.window.fire({ type: 'popstate' });
    this.window.fire({ type: 'hashchange' });
  }

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.document.fire({ type: 'visibilitychange', target: this.document });
  }

  blur(): void {
    this.focused = false;
    this.window.fire({ type: 'blur' });
  }

  focus(): void {
    this.focused = true;
    this.window.fire({ type: 'focus' });
  }

  pagehide(): void {
    this.window.fire({ type: 'pagehide' });
  }

  scrollTo(y: number): void {
    this.window.scrollY = y;
    this.window.fire({ type: 'scroll' });
  }
}

/** Runs `code` in a fresh fake browser at `options.url`. */
export function openPage(code: string, options: BrowserOptions): FakeBrowser {
  return new FakeBrowser(options).run(code);
}
