// The partitioner must agree with Kafka's Java client byte for byte, or a replay puts keys in
// other partitions than the broker does. Every expected value below is a literal taken from
// Kafka itself, never computed by this code.
import { describe, expect, it } from 'vitest';
import { murmur2, partitionFor } from './partitioner.js';

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

describe('murmur2', () => {
  // apache/kafka clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java, testMurmur2.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])("hashes %j as Kafka's UtilsTest expects", (key, expected) => {
    expect(murmur2(utf8(key))).toBe(expected);
  });

  // Computed with kafka-clients 4.1.1's own org.apache.kafka.common.utils.Utils.murmur2, run in
  // jshell over `key.getBytes(StandardCharsets.UTF_8)`: every tail length (0–3 bytes over a
  // multiple of 4) and multi-byte UTF-8.
  it.each([
    ['', 275646681],
    ['a', -1563381124],
    ['ab', 316155434],
    ['abcd', -1323649548],
    ['abcde', 461995741],
    ['run-1', 637533037],
    ['session:agent-42', -508135719],
    ['héllo wörld', 439213890],
    ['日本語キー', 1445825182],
    ['🦀 emoji key', 1458947910],
    ['slack:T123:C456', -1649838894],
  ])("hashes the UTF-8 of %j as Kafka's client does", (key, expected) => {
    expect(murmur2(utf8(key))).toBe(expected);
  });

  // Same source; bytes ≥ 0x80 are negative Java bytes, so these catch a missing `& 0xff`.
  it.each([
    [[0xff], -311467685],
    [[0x80, 0x81], 1642145146],
    [[0xff, 0xfe, 0xfd], 998637092],
    [[0xff, 0xff, 0xff, 0xff], 644171429],
    [[0, 0, 0, 0, 0], 263274959],
  ])("hashes the raw bytes %j as Kafka's client does", (bytes, expected) => {
    expect(murmur2(new Uint8Array(bytes))).toBe(expected);
  });
});

describe('partitionFor', () => {
  // Kafka's default partitioner for a keyed record: Utils.toPositive(Utils.murmur2(bytes)) % n,
  // computed with kafka-clients 4.1.1 in jshell, for n = 3, 12 and 100.
  it.each([
    ['', 0, 9, 81],
    ['a', 1, 4, 24],
    ['abcd', 2, 8, 0],
    ['run-1', 1, 1, 37],
    ['session:agent-42', 2, 5, 29],
    ['héllo wörld', 0, 6, 90],
    ['日本語キー', 1, 10, 82],
    ['🦀 emoji key', 0, 6, 10],
    ['slack:T123:C456', 2, 2, 54],
  ])("puts %j where Kafka's default partitioner does", (key, p3, p12, p100) => {
    expect([partitionFor(key, 3), partitionFor(key, 12), partitionFor(key, 100)]).toEqual([p3, p12, p100]);
  });
});
