// Manifest bytes to text. Manifests are UTF-8; anything else (a NUL byte, invalid UTF-8) is refused
// rather than parsed into nonsense.
import { readFileSync } from 'node:fs';
import { InputError } from './errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const BOM = 0xfeff;

/** The text of bytes read whole (from a pipe or stdin). */
export function decodeText(path: string, bytes: Uint8Array): string {
  const nul = bytes.indexOf(0);
  if (nul !== -1) throw new InputError(path, `not a text file (NUL byte at offset ${String(nul)})`);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new InputError(path, 'not a text file (invalid UTF-8)');
  }
}

/**
 * The text of the regular file open as `fd`, and its size in bytes. Node decodes it natively and
 * frees its own buffer at once; reading a Buffer and decoding that would leave a Buffer the size of
 * the file alive until a full garbage collection, for a 30 MB file through most of the run.
 */
export function readTextSync(path: string, fd: number): { readonly text: string; readonly bytes: number } {
  const text = readFileSync(fd, 'utf8');
  if (text.includes('\uFFFD')) {
    // Invalid UTF-8 (replaced) or a genuine U+FFFD: only the strict decoder can tell.
    const strict = decodeText(path, readFileSync(path));
    return { text: strict, bytes: Buffer.byteLength(strict) };
  }
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    const offset = Buffer.byteLength(text.slice(0, nul));
    throw new InputError(path, `not a text file (NUL byte at offset ${String(offset)})`);
  }
  // TextDecoder drops a leading byte order mark; so does this.
  return { text: text.charCodeAt(0) === BOM ? text.slice(1) : text, bytes: Buffer.byteLength(text) };
}
