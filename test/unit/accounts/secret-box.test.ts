import { randomBytes } from 'node:crypto';
import { createSecretBox, keyIdOf, parseKey } from '../../../src/accounts/secret-box';

const aKey = () => randomBytes(32);

describe('the secret box', () => {
  it('opens what it sealed, and the sealed text names its key but holds no clear text', () => {
    const key = aKey();
    const box = createSecretBox(key);
    const sealed = box.seal('my-app-secret', 'account wx1 secret');
    expect(sealed).not.toContain('my-app-secret');
    expect(sealed.split('.')[1]).toBe(keyIdOf(key));
    expect(box.open(sealed, 'account wx1 secret')).toBe('my-app-secret');
  });

  it('seals the same secret differently each time', () => {
    const box = createSecretBox(aKey());
    expect(box.seal('s', 'c')).not.toBe(box.seal('s', 'c'));
  });

  it('refuses to open with a wrong key, naming the key and the field, never the secret', () => {
    const sealed = createSecretBox(aKey()).seal('my-app-secret', 'account wx1 secret');
    const open = () => createSecretBox(aKey()).open(sealed, 'account wx1 secret');
    expect(open).toThrow(/account wx1 secret was sealed with key [0-9a-f]{8}, which is neither/);
    expect(open).not.toThrow(/my-app-secret/);
  });

  it('refuses to open without a key, saying ACCOUNTS_ENCRYPTION_KEY is not set', () => {
    const sealed = createSecretBox(aKey()).seal('x', 'account wx1 secret');
    expect(() => createSecretBox(null).open(sealed, 'account wx1 secret')).toThrow(
      'account wx1 secret is encrypted but ACCOUNTS_ENCRYPTION_KEY is not set',
    );
    expect(() => createSecretBox(null).seal('x', 'c')).toThrow(/ACCOUNTS_ENCRYPTION_KEY is not set/);
  });

  it('refuses a sealed text moved to another account or field, or altered', () => {
    const box = createSecretBox(aKey());
    const sealed = box.seal('my-app-secret', 'account wx1 secret');
    expect(() => box.open(sealed, 'account wx2 secret')).toThrow(/does not open with key/);
    // The ciphertext's first character: it carries six whole bits (the last one may carry bits base64 drops).
    const parts = sealed.split('.');
    const data = parts.pop()!;
    const altered = [...parts, (data[0] === 'A' ? 'B' : 'A') + data.slice(1)].join('.');
    expect(() => box.open(altered, 'account wx1 secret')).toThrow(/does not open|not a sealed secret/);
    expect(() => box.open('plain-secret', 'account wx1 secret')).toThrow(
      'the stored account wx1 secret is not a sealed secret',
    );
  });

  it('rotates: opens with a previous key, reports it stale, and a new seal uses the current key', () => {
    const [oldKey, newKey] = [aKey(), aKey()];
    const sealedOld = createSecretBox(oldKey).seal('s3cret', 'c');
    const box = createSecretBox(newKey, [oldKey]);
    expect(box.open(sealedOld, 'c')).toBe('s3cret');
    expect(box.isStale(sealedOld)).toBe(true);
    const resealed = box.seal(box.open(sealedOld, 'c'), 'c');
    expect(box.isStale(resealed)).toBe(false);
    expect(createSecretBox(newKey).open(resealed, 'c')).toBe('s3cret');
  });

  it('parses a 32-byte base64 key and describes a malformed one without quoting it', () => {
    const key = aKey();
    expect(parseKey(key.toString('base64'))).toEqual(key);
    expect(parseKey(randomBytes(16).toString('base64'))).toMatch(/must be 32 bytes in base64/);
    expect(parseKey('not a key at all')).not.toContain('not a key');
  });
});
