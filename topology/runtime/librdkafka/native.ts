// The optional dependency, loaded once: @confluentinc/kafka-javascript's native API
// (librdkafka). It is a native addon built at install time; where it could not be built the
// package is absent (or fails to load), and `rdkafka` is undefined with the reason kept.
import { createRequire } from 'node:module';
import type * as Native from '@confluentinc/kafka-javascript';

export type RdKafka = typeof Native;

const require = createRequire(import.meta.url);

function load(): { rdkafka: RdKafka | undefined; loadError: string | undefined } {
  try {
    return { rdkafka: require('@confluentinc/kafka-javascript') as RdKafka, loadError: undefined };
  } catch (e) {
    return { rdkafka: undefined, loadError: (e as Error).message.split('\n')[0] };
  }
}

export const { rdkafka, loadError } = load();
