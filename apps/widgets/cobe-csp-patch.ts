import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * cobe (the globe's WebGL renderer, MIT) as shipped does two things a host page with
 * a strict CSP refuses, each reported as a violation on every frame:
 * - it appends a `<style>` element to the HOST page's `<head>` (for DOM-bound markers,
 *   which the widget does not use) and rewrites it on each render: inline style;
 * - it loads its land texture from a `data:` URL through `new Image()`: img-src.
 * Here at build time the `<style>` stays detached, and the texture's PNG bytes are
 * decoded with `createImageBitmap` (no fetch, so no img-src) and handed to WebGL the
 * same way. The build fails if either pattern is not found, so an upgrade of cobe
 * cannot silently bring the violations back.
 */
const IMAGE_LOAD = /let (\w+)=new Image;\1\.onload=(\(\)=>\{[^}]*\}),\1\.src="data:image\/png;base64,([A-Za-z0-9+/=]+)"/;
const HEAD_APPEND = 'document.head.append(';

export const cobeCspPatch: Plugin = {
  name: 'cobe-csp-patch',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]cobe[\\/]dist[\\/]index\.esm\.js$/ }, async (args) => {
      let code = await readFile(args.path, 'utf8');
      if (!IMAGE_LOAD.test(code) || code.split(HEAD_APPEND).length !== 2)
        throw new Error('cobe-csp-patch: cobe changed; review the patch (apps/widgets/cobe-csp-patch.ts)');
      code = code.replace(HEAD_APPEND, '(()=>{})(');
      code = code.replace(
        IMAGE_LOAD,
        (_, image: string, onload: string, png: string) =>
          `let ${image};((done)=>{const s=atob("${png}"),u=new Uint8Array(s.length);for(let i=0;i<s.length;i++)u[i]=s.charCodeAt(i);createImageBitmap(new Blob([u],{type:"image/png"})).then((b)=>{${image}=b;done()},()=>{})})(${onload})`,
      );
      return { contents: code, loader: 'js' };
    });
  },
};
