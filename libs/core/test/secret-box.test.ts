import { ConfigError, SecretBox } from '@vus/core';

describe('SecretBox', () => {
  const box = SecretBox.fromKey(SecretBox.newKey(), 'TEST_KEY');

  it('seals a secret so that the stored form does not contain it, and opens it again', () => {
    const sealed = box.seal('whsec_abc123');
    expect(sealed).not.toContain('whsec_abc123');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(box.seal('whsec_abc123')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('whsec_abc123');
  });

  it('reads a value stored before encryption as it is', () => {
    expect(box.open('whsec_plain')).toBe('whsec_plain');
  });

  it('refuses a value sealed under another key, or altered', () => {
    const other = SecretBox.fromKey('00'.repeat(32), 'TEST_KEY');
    const sealed = other.seal('whsec_abc123');
    expect(() => box.open(sealed)).toThrow('another key');
    // The second-to-last character carries only ciphertext bits (the last may carry unused padding bits).
    const altered = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
    expect(() => other.open(altered)).toThrow('altered');
  });

  it.each(['', 'short', 'ab'.repeat(31), Buffer.alloc(16).toString('base64')])('refuses the key %p, naming the setting', (key) => {
    expect(() => SecretBox.fromKey(key, 'WEBHOOK_SECRET_KEY')).toThrow(ConfigError);
    expect(() => SecretBox.fromKey(key, 'WEBHOOK_SECRET_KEY')).toThrow(/WEBHOOK_SECRET_KEY: a 32-byte key/);
  });

  it('takes hex and base64url keys', () => {
    expect(SecretBox.fromKey('ab'.repeat(32), 'K').open(SecretBox.fromKey('ab'.repeat(32), 'K').seal('x'))).toBe('x');
    expect(() => SecretBox.fromKey(Buffer.alloc(32, 255).toString('base64url'), 'K')).not.toThrow();
  });
});
