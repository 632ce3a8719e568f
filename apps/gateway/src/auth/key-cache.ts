import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { identityV1 } from '@sightline/proto';

export type Principal = identityV1.Principal;

/**
 * Verified keys, cached for a few seconds so most requests skip the identity call.
 * Entries are keyed by the SHA-256 of the token (the secret itself is never held
 * longer than the request). A revocation pushed over the bus drops a key at once,
 * so the TTL only bounds staleness of things that are not pushed.
 */
export class KeyCache {
  private readonly byTokenHash: LRUCache<string, Principal>;
  private readonly hashesByKeyId = new Map<string, Set<string>>();

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.byTokenHash = new LRUCache<string, Principal>({
      max: maxEntries,
      ttl: Math.max(ttlMs, 1),
      disposeAfter: (principal, tokenHash) => {
        const hashes = this.hashesByKeyId.get(principal.keyId);
        hashes?.delete(tokenHash);
        if (hashes?.size === 0) this.hashesByKeyId.delete(principal.keyId);
      },
    });
  }

  static hashToken(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  get(tokenHash: string): Principal | undefined {
    return this.byTokenHash.get(tokenHash);
  }

  set(tokenHash: string, principal: Principal): void {
    this.byTokenHash.set(tokenHash, principal);
    let hashes = this.hashesByKeyId.get(principal.keyId);
    if (!hashes) this.hashesByKeyId.set(principal.keyId, (hashes = new Set()));
    hashes.add(tokenHash);
  }

  /** Drops every cached token of a key (revoked or rotated). */
  forgetKey(keyId: string): void {
    for (const tokenHash of [...(this.hashesByKeyId.get(keyId) ?? [])]) this.byTokenHash.delete(tokenHash);
    this.hashesByKeyId.delete(keyId);
  }
}
