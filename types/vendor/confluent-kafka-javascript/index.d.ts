export * from './types/rdkafka';
export * as RdKafka from './types/rdkafka';
export * as KafkaJS from './types/kafkajs';