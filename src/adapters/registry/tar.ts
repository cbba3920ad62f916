// A minimal, deterministic ustar writer for image layers the kpack stand-in "builds": regular files
// only, fixed owner, mode and time, so equal files give equal layer digests.

export interface TarFile {
  /** Relative path, at most 100 bytes, e.g. `workspace/droplet.txt`. */
  readonly path: string;
  readonly content: string | Uint8Array;
  /** Default 0o644. */
  readonly mode?: number;
}

const BLOCK = 512;

function writeString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.byteLength > length) throw new RangeError(`tar field too long: ${value}`);
  header.set(bytes, offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** The tar archive of `files` in the given order, ending in two zero blocks. */
export function tarArchive(files: readonly TarFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const file of files) {
    const content = typeof file.content === 'string' ? new TextEncoder().encode(file.content) : file.content;
    const header = new Uint8Array(BLOCK);
    writeString(header, 0, 100, file.path);
    writeOctal(header, 100, 8, file.mode ?? 0o644);
    writeOctal(header, 108, 8, 0);
    writeOctal(header, 116, 8, 0);
    writeOctal(header, 124, 12, content.byteLength);
    writeOctal(header, 136, 12, 0);
    header.fill(0x20, 148, 156);
    header[156] = 0x30; // '0': regular file
    writeString(header, 257, 8, 'ustar\u000000');
    const checksum = header.reduce((sum, byte) => sum + byte, 0);
    writeString(header, 148, 8, `${checksum.toString(8).padStart(6, '0')}\0 `);
    parts.push(header, content, new Uint8Array((BLOCK - (content.byteLength % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  return Buffer.concat(parts);
}
