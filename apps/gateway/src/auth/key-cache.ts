import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { identityV1 } from '@sightline/proto';

export type Principal = identityV1.Principal;

/**
 * Verified keys, cached for a few seconds so most requests skip the identity call.
 * Entries are keyed by the SHA-256 of the token (the secret itself is never held
 * longer than the request). A revocation pushed over the bus drops a key at once,
 * so the TTL only bounds staleness of things that are not pushed.
 *
 * `staleMs` keeps a verified key a while longer for one use only: answering while
 * identity is unavailable (a restart). Keys are revoked through identity, so none can be
 * revoked during the outage, and a revocation before it dropped the key here already.
 */
export class KeyCache {
  private readonly byTokenHash: LRUCache<string, Principal>;
  private readonly hashesByKeyId = new Map<string, Set<string>>();
  /** last verification of each token, for {@link getWhileUnavailable}; absent when staleMs is 0 */
  private readonly lastVerified: LRUCache<string, Principal> | undefined;

  constructor(ttlMs: number, maxEntries = 10_000, staleMs = 0) {
    this.lastVerified = staleMs > 0 ? new LRUCache<string, Principal>({ max: maxEntries, ttl: staleMs }) : undefined;
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

  /** A key verified within `staleMs`: only for when identity cannot be asked. */
  getWhileUnavailable(tokenHash: string): Principal | undefined {
    return this.lastVerified?.get(tokenHash);
  }

  set(tokenHash: string, principal: Principal): void {
    this.byTokenHash.set(tokenHash, principal);
    this.lastVerified?.set(tokenHash, principal);
    let hashes = this.hashesByKeyId.get(principal.keyId);
    if (!hashes) this.hashesByKeyId.set(principal.keyId, (hashes = new Set()));
    hashes.add(tokenHash);
  }

  /** Drops every cached token of a key (revoked or rotated). */
  forgetKey(keyId: string): void {
    for (const tokenHash of [...(this.hashesByKeyId.get(keyId) ?? [])]) this.byTokenHash.delete(tokenHash);
    this.hashesByKeyId.delete(keyId);
    // the fresh entries' index may have lost older tokens of this key; revocations are rare
    if (this.lastVerified) for (const [tokenHash, principal] of this.lastVerified.entries()) if (principal.keyId === keyId) this.lastVerified.delete(tokenHash);
  }
}
