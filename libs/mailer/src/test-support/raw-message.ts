/**
 * A deliberately small RFC 5322 / MIME reader for tests, independent of nodemailer, so the
 * tests check what a mail client would see rather than what nodemailer thinks it wrote.
 * Handles unfolding, RFC 2047 encoded words, quoted-printable/base64 bodies and one level
 * of multipart. Not for production use.
 */
export interface ParsedMessage {
  /** Lower-cased header name → decoded value (first occurrence). */
  headers: Map<string, string>;
  /** Raw header block as written (still encoded), for byte-level assertions. */
  rawHeaders: string;
  /** Decoded body of a single-part message; for multipart, the text/plain part. */
  text: string;
  /** Decoded text/html part, when there is one. */
  html?: string;
}

export function parseMessage(raw: string | Buffer): ParsedMessage {
  const entity = parseEntity(typeof raw === 'string' ? raw : raw.toString('latin1'));
  const contentType = entity.headers.get('content-type') ?? 'text/plain';
  const parsed: ParsedMessage = { headers: entity.headers, rawHeaders: entity.rawHeaders, text: '' };
  if (!/^multipart\//i.test(contentType)) {
    // The last CRLF terminates the final line (SMTP DATA needs it); it is not content.
    parsed.text = decodeBody({ ...entity, body: entity.body.replace(/\r?\n$/, '') });
    return parsed;
  }
  for (const part of splitMultipart(entity.body, boundaryOf(contentType))) {
    const type = part.headers.get('content-type') ?? 'text/plain';
    if (/^text\/plain/i.test(type)) parsed.text = decodeBody(part);
    if (/^text\/html/i.test(type)) parsed.html = decodeBody(part);
  }
  return parsed;
}

interface Entity {
  headers: Map<string, string>;
  rawHeaders: string;
  /** Body as a binary ("latin1") string: one char per byte. */
  body: string;
}

function parseEntity(raw: string): Entity {
  const match = /\r?\n\r?\n/.exec(raw);
  const rawHeaders = match ? raw.slice(0, match.index) : raw;
  const body = match ? raw.slice(match.index + match[0].length) : '';
  const headers = new Map<string, string>();
  const unfolded = rawHeaders.replace(/\r?\n(?=[ \t])/g, '');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeEncodedWords(line.slice(colon + 1).trim()));
  }
  return { headers, rawHeaders, body };
}

/** RFC 2047: `=?charset?B|Q?data?=`; whitespace between adjacent encoded words is dropped. */
function decodeEncodedWords(value: string): string {
  const word = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g;
  const joined = value.replace(/(\?=)\s+(?==\?)/g, '$1');
  return joined.replace(word, (_all, charset: string, encoding: string, data: string) => {
    const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data.replace(/_/g, ' '));
    return new TextDecoder(charset).decode(bytes);
  });
}

function decodeBody(entity: Entity): string {
  const encoding = (entity.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const charset = /charset="?([^";\s]+)"?/i.exec(entity.headers.get('content-type') ?? '')?.[1] ?? 'us-ascii';
  let bytes: Buffer;
  if (encoding === 'quoted-printable') bytes = qpBytes(entity.body.replace(/=\r?\n/g, ''));
  else if (encoding === 'base64') bytes = Buffer.from(entity.body.replace(/\s+/g, ''), 'base64');
  else bytes = Buffer.from(entity.body, 'latin1');
  return new TextDecoder(charset).decode(bytes);
}

function qpBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(text.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function boundaryOf(contentType: string): string {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) throw new Error(`multipart without boundary: ${contentType}`);
  return boundary;
}

function splitMultipart(body: string, boundary: string): Entity[] {
  const delimiter = `--${boundary}`;
  const sections = body.split(new RegExp(`\\r?\\n?${escapeRegExp(delimiter)}`));
  // sections[0] is the preamble; the part after the closing `--boundary--` is the epilogue.
  return sections
    .slice(1)
    .filter((section) => !section.startsWith('--'))
    .map((section) => parseEntity(section.replace(/^\r?\n/, '')));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
