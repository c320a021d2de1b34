// The one place that picks the Kafka client (`loopguard.kafka.client`): librdkafka when asked
// for and installed (an optional dependency, built at install time), else kafkajs, said once.
import type { LoopguardSettings } from '../config.js';
import type { Logger } from '../logger.js';
import { connectKafka as connectKafkajs } from './kafkajs/index.js';
import { connectRdkafka, loadError, rdkafka } from './librdkafka/index.js';
import type { KafkaSession } from './port.js';

export type KafkaClientName = LoopguardSettings['kafka']['client'];

let warnedMissing = false;

/** The client a session with these settings runs on (librdkafka asked for but not installed: kafkajs). */
export function kafkaClientInUse(settings: Pick<LoopguardSettings, 'kafka'>): KafkaClientName {
  return settings.kafka.client === 'librdkafka' && rdkafka !== undefined ? 'librdkafka' : 'kafkajs';
}

export function connectKafka(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix = ''): KafkaSession {
  if (settings.kafka.client === 'librdkafka') {
    if (rdkafka !== undefined) return connectRdkafka(rdkafka, settings, log, clientSuffix);
    if (!warnedMissing) {
      warnedMissing = true;
      log.warn(
        { reason: loadError },
        'loopguard.kafka.client is librdkafka, but @confluentinc/kafka-javascript is not installed (it builds from source at npm install when the libssl, zlib, zstd, lz4, sasl2 and curl dev packages are present): running on kafkajs',
      );
    }
  }
  return connectKafkajs(settings, log, clientSuffix);
}
