// parseChunk decodes each line on its own; it must give exactly what decoding the whole chunk
// and splitting it gives (splitLines, which line numbers and the serial fold are defined by).
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { splitLines } from './batches.js';
import { parseChunk, parseLine } from './parse.js';

const topology = buildTopology(configFrom({}));
const call = (runId: string, extra = '') => `{"type":"tool_call","ts":1700000000000,"runId":"${runId}","toolName":"read","args":{"p":"${extra}"}}`;
const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

const cases: Record<string, Buffer> = {
  'lines with a trailing newline': bytes(call('a'), '\n', call('b'), '\n'),
  'no trailing newline': bytes(call('a'), '\n', call('b')),
  'CRLF, blank and whitespace-only lines': bytes(call('a'), '\r\n', '\n', '  \r\n', call('b'), '\r\n', '\r'),
  'a lone \\r inside a line and a line of only \\r': bytes(call('a', 'x\ry'), '\n\r\n', call('b')),
  'multi-byte characters': bytes(call('a', 'é €𝄞 ü'), '\n', call('b', '日本'), '\n'),
  'UTF-8 sequences cut short by a newline or the end': bytes(call('a'), [0xe2, 0x82], '\n', [0xf0, 0x9d], '\n', call('b'), [0xc3]),
  'invalid bytes inside a line': bytes('{"type":"tool_call","ts":1,"runId":"', [0xff, 0xfe, 0xc0, 0x80], '","toolName":"x","args":1}\n'),
  'not JSON, and an invalid event': bytes('{not json\n', '{"type":"nope"}\n', call('c'), '\n'),
  // JSON.parse's reason differs with and without the \r (a control character in a string).
  'an unterminated string before CRLF': bytes('{"type":"tool_call","runId":"a\r\n', call('b'), '\n'),
  'only newlines': bytes('\n\n\n'),
  empty: bytes(''),
};

describe('parseChunk', () => {
  for (const [name, chunk] of Object.entries(cases)) {
    it(`equals splitLines + parseLine: ${name}`, () => {
      const expected = splitLines(chunk).map((text) => parseLine(topology, text));
      expect(parseChunk(topology, chunk)).toEqual(expected);
    });
  }

  it('reads only its view of a larger buffer', () => {
    const whole = bytes('garbage\n', call('a'), '\n', call('b'), '\n', 'more garbage');
    const start = whole.indexOf('{');
    const end = whole.lastIndexOf('\n') + 1;
    const view = new Uint8Array(whole.buffer, whole.byteOffset + start, end - start);
    expect(parseChunk(topology, view)).toEqual(splitLines(view).map((text) => parseLine(topology, text)));
    expect(parseChunk(topology, view)).toHaveLength(2);
  });
});
