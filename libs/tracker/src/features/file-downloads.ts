/** file-downloads: a click on a link to a common file type → `File Download` with `p.url` (any host). */
import { send } from '../core/send.js';
import { linkClicks } from './link-clicks.js';

const FILE = /\.(pdf|xlsx?|docx?|txt|rtf|csv|exe|key|pp[st]x?|7z|pkg|rar|gz|zip|avi|mov|mp4|mpe?g|wmv|midi?|mp3|wav|wma|dmg|iso|msi|apk|epub)$/i;

linkClicks((link) => {
  if (FILE.test(link.pathname)) send('File Download', { p: { url: link.href } });
});
