// What the Kafka-facing commands share: a Kafka session and a schema catalog from config.
import { SchemaCatalog } from '../schemas/registry.js';
import type { LoopguardConfig } from '../topology/config.js';
import type { Logger } from '../topology/logger.js';
import { connectKafka } from '../topology/runtime/connect.js';
import type { KafkaSession } from '../topology/runtime/port.js';

export interface Connected {
  readonly kafka: KafkaSession;
  readonly catalog: SchemaCatalog;
}

export function connect(config: LoopguardConfig, log: Logger, clientSuffix = ''): Connected {
  return { kafka: connectKafka(config.settings, log, clientSuffix), catalog: SchemaCatalog.connect(config.settings.schemaRegistry) };
}
