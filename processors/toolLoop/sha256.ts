// Lowercase hex SHA-256 of a string's UTF-8 bytes, or of bytes. One-shot hashing where Node has
// it (20.12+): no Hash object per value.
import crypto, { createHash } from 'node:crypto';

const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

export const sha256 = oneShot !== undefined ? (text: string) => oneShot('sha256', text, 'hex') : (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const sha256Bytes = oneShot !== undefined ? (data: Uint8Array) => oneShot('sha256', data, 'hex') : (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
