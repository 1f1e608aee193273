import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from './config';

/** Stored form: this marker, then base64url of IV (12 bytes) + GCM tag (16 bytes) + ciphertext. */
const SEALED = 'aesgcm1:';

/**
 * Secrets a service must be able to read back (webhook signing secrets: it signs with them) kept
 * encrypted at rest with AES-256-GCM under a key from the configuration, so a database dump or
 * backup does not hand them out. A value stored before encryption was on (no marker) reads as it
 * is, until `seal` rewrites it.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** A 32-byte key, as 64 hex digits or base64/base64url; a ConfigError naming `setting` otherwise. */
  static fromKey(encoded: string, setting: string): SecretBox {
    const text = encoded.trim();
    const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32) {
      throw new ConfigError([`${setting}: a 32-byte key is needed, as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`).`]);
    }
    return new SecretBox(key);
  }

  /** A new random key, base64 (what fromKey takes). */
  static newKey(): string {
    return randomBytes(32).toString('base64');
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(SEALED);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The secret; throws when the value was sealed under another key or altered. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(SEALED.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('A stored secret cannot be decrypted: it was encrypted under another key (check the configured key), or altered.');
    }
  }
}
