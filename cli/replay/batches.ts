// Input in chunks of whole lines (about the size of the stream's reads, 112 KB for a file): the
// unit replay hands to a parse worker. Splitting into lines happens where the chunk is parsed (a
// worker, or this thread), so the reading thread only looks for the last newline. Constant memory: one chunk and its unfinished line at a time.
import type { Readable } from 'node:stream';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Chunks ending at a line boundary; a UTF-8 byte order mark at the very start is dropped. */
export async function* lineChunks(input: Readable): AsyncGenerator<Buffer> {
  let rest: Buffer | undefined;
  let first = true;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (rest !== undefined) data = Buffer.concat([rest, data]);
    if (first && data.length >= BOM.length) {
      first = false;
      if (data.subarray(0, BOM.length).equals(BOM)) data = data.subarray(BOM.length);
    }
    const end = data.lastIndexOf(10);
    if (end === -1) {
      rest = data;
      continue;
    }
    yield data.subarray(0, end + 1);
    rest = end + 1 < data.length ? data.subarray(end + 1) : undefined;
  }
  if (rest !== undefined && rest.length > 0) yield first && rest.subarray(0, BOM.length).equals(BOM) ? rest.subarray(BOM.length) : rest;
}

/** The lines of a chunk, without their newline (a trailing \r dropped too). */
export function splitLines(chunk: Uint8Array): string[] {
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1);
  return lines;
}
