/** Longest token accepted before any work: real ones are ~52 characters. */
const MAX_TOKEN_LENGTH = 200;

/** The token of `Authorization: Bearer <token>`, or undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9_\-.~+/]+=*)\s*$/i.exec(header);
  const token = match?.[1];
  return token && token.length <= MAX_TOKEN_LENGTH ? token : undefined;
}
