import { describe, expect, it } from 'vitest';
import { bootJson, NOT_FOUND_PAGE, renderShell } from './html-shell.js';

describe('renderShell', () => {
  it('escapes the boot JSON so no value closes its element, and stays valid JSON', () => {
    const boot = { page: 'share' as const, share_hash: '</script><script>alert(1)</script>&', embed: false, theme: 'system' as const };
    const json = bootJson(boot);
    expect(json).not.toMatch(/[<>&]/);
    expect(JSON.parse(json)).toEqual(boot);
    const html = renderShell({ entry: 'assets/app.1.js', css: 'assets/app.1.css' }, boot, '<b>"x"</b> & co');
    expect(html).toContain('<title>&#60;b&#62;&#34;x&#34;&#60;/b&#62; &#38; co</title>');
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('carries its icon inline, so no page asks for /favicon.ico', () => {
    const html = renderShell({ entry: 'assets/app.1.js', css: 'assets/app.1.css' }, { page: 'home', embed: false, theme: 'system' }, 'Sightline');
    for (const page of [html, NOT_FOUND_PAGE]) expect(page).toMatch(/<link rel="icon" href="data:image\/svg\+xml,%3Csvg[^"]*">/);
  });
});
