/**
 * Mesh credentials: fresh random tokens, identified only by the exact token, replaced when a
 * participant gets a new one, and forgotten when revoked.
 */
import { describe, expect, it } from 'vitest';

import { MeshCredentials, newMeshToken } from '../../../src/runtime/mesh/mesh-credential.js';

describe('mesh credentials', () => {
  it('issues distinct 32-byte base64url tokens', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newMeshToken()));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('identifies a caller by its exact token only', () => {
    const credentials = new MeshCredentials();
    const root = credentials.issue({ process: 'lead', participant: 'root' });
    const worker = credentials.issue({ process: 'worker', participant: 'worker-1' });
    expect(credentials.identify(root)).toEqual({ process: 'lead', participant: 'root' });
    expect(credentials.identify(worker)).toEqual({ process: 'worker', participant: 'worker-1' });
    for (const wrong of ['', root.slice(1), `${root}x`, root.toUpperCase(), 'root', 'lead']) {
      expect(credentials.identify(wrong)).toBeUndefined();
    }
  });

  it('replaces and revokes a participant’s token', () => {
    const credentials = new MeshCredentials();
    const first = credentials.issue({ process: 'worker', participant: 'worker-1' });
    const second = credentials.issue({ process: 'worker', participant: 'worker-1' });
    expect(credentials.identify(first)).toBeUndefined();
    expect(credentials.identify(second)?.participant).toBe('worker-1');
    credentials.revoke('worker-1');
    expect(credentials.identify(second)).toBeUndefined();
    credentials.revoke('nobody');
  });
});
