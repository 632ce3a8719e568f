/**
 * The widgets' shared stylesheet, adopted by each closed shadow root as a constructed
 * CSSStyleSheet: the host page's CSS cannot reach in, ours cannot leak out, and a
 * constructed sheet needs no 'unsafe-inline' in the host page's CSP. Colours come from
 * custom properties per theme (`auto` follows prefers-color-scheme); the accent may be
 * overridden by data-accent. Every animation stops under prefers-reduced-motion.
 */
export const BASE_CSS = `
:host{display:block}
.w{--fg:#1f2328;--muted:#57606a;--bg:#fff;--line:#d0d7de;--track:#eaeef2;--accent:#4f46e5;--land:#d8dee4;
box-sizing:border-box;position:relative;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:12px 14px;max-width:100%;overflow:hidden}
.w.dark{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--line:#30363d;--track:#21262d;--accent:#818cf8;--land:#30363d}
@media (prefers-color-scheme:dark){.w.auto{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--line:#30363d;--track:#21262d;--accent:#818cf8;--land:#30363d}}
.w *{box-sizing:border-box}
.title{margin:0 0 8px;font-size:13px;font-weight:600;color:var(--muted)}
.num{font-size:32px;font-weight:700;line-height:1.1;font-variant-numeric:tabular-nums}
.muted,.placeholder{color:var(--muted)}
.placeholder{margin:0;font-size:13px}
.credit{margin:8px 0 0;font-size:11px;color:var(--muted)}
.credit a{color:inherit}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;background:#1a7f37;margin-right:8px;vertical-align:middle;animation:pulse 2s ease-out infinite}
@keyframes pulse{0%{box-shadow:0 0 0 0 rgba(26,127,55,.5)}100%{box-shadow:0 0 0 10px rgba(26,127,55,0)}}
.spark{display:block;width:100%;height:40px;margin-top:8px}
.spark path{fill:none;stroke:var(--accent);stroke-width:2;vector-effect:non-scaling-stroke}
.list{list-style:none;margin:0;padding:0}
.list li{display:grid;grid-template-columns:1.6em 1fr auto auto;gap:0 8px;align-items:center;padding:3px 0;font-variant-numeric:tabular-nums}
.list .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.list .share{color:var(--muted);min-width:3.5em;text-align:right}
.list .bar{grid-column:2/5;height:4px;border-radius:2px;background:var(--track);overflow:hidden}
.list .bar span{display:block;height:100%;width:calc(var(--share,0)*1%);background:var(--accent)}
.map{display:block;width:100%;height:auto}
.map path{fill:var(--land);stroke:var(--bg);stroke-width:.5}
.map path.l1{fill:var(--accent);fill-opacity:.25}.map path.l2{fill:var(--accent);fill-opacity:.45}.map path.l3{fill:var(--accent);fill-opacity:.65}.map path.l4{fill:var(--accent);fill-opacity:.82}.map path.l5{fill:var(--accent);fill-opacity:1}
.legend{display:flex;align-items:center;gap:6px;margin-top:6px;font-size:12px;color:var(--muted)}
.legend .sw{display:inline-block;width:16px;height:10px;background:var(--accent)}
.legend .sw.l1{opacity:.25}.legend .sw.l2{opacity:.45}.legend .sw.l3{opacity:.65}.legend .sw.l4{opacity:.82}
.tip{position:absolute;pointer-events:none;padding:4px 8px;border-radius:4px;background:var(--fg);color:var(--bg);font-size:12px;white-space:nowrap;transform:translate(-50%,-130%)}
.tip[hidden]{display:none}
.globe{position:relative;margin:0 auto;aspect-ratio:1}
.globe canvas{width:100%;height:100%;display:block}
@media (prefers-reduced-motion:reduce){.dot{animation:none}}
`;
