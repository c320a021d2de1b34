// The architecture as rules, checked by `npm run lint:deps` (part of `npm test`).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form layers; a cycle means two of them should be one, or share a third.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'processors-are-pure',
      severity: 'error',
      comment: 'processors/ is the domain: it imports nothing of the project outside itself (the kernel is inside it).',
      from: { path: '^processors/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(topology|schemas|sdk|cli|test|bench|scripts)/' },
    },
    {
      name: 'processors-do-no-io',
      severity: 'error',
      comment: 'No Kafka, registry, logging or Avro in the domain.',
      from: { path: '^processors/' },
      to: { path: 'node_modules/(kafkajs|@kafkajs|avsc|pino|prom-client|mappersmith)/' },
    },
    {
      name: 'only-the-adapter-imports-the-kafka-client',
      severity: 'error',
      comment:
        "kafkajs stays behind the port (topology/runtime/port.ts): another client is one more adapter folder. bench/kafkajs-encode.mjs measures the adapter's kafkajs patches against kafkajs itself.",
      from: { pathNot: '^topology/runtime/kafkajs/|^scripts/|^test/|^bench/kafkajs-encode\\.mjs$' },
      to: { path: 'node_modules/kafkajs/' },
    },
    {
      name: 'only-the-librdkafka-adapter-imports-librdkafka',
      severity: 'error',
      comment: '@confluentinc/kafka-javascript (librdkafka) stays behind the port too, in its own adapter folder.',
      from: { pathNot: '^topology/runtime/librdkafka/' },
      to: { path: 'node_modules/@confluentinc/' },
    },
    {
      name: 'schemas-below-topology',
      severity: 'error',
      comment: 'The wire contract is read by the topology, never the other way round (the one error base is shared).',
      from: { path: '^schemas/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(topology|cli|sdk)/', pathNot: '^topology/errors\\.ts$' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      from: { path: '^(processors|topology|schemas|sdk|cli|integrations)/', pathNot: '(\\.spec\\.ts|/testing/.*)$' },
      to: { path: '(\\.spec\\.ts$|^test/)' },
    },
    {
      name: 'integrations-stand-alone',
      severity: 'error',
      comment: 'Importing one integration must load no other integration, nor the CLI or test code.',
      from: { path: '^integrations/([^/]+)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(integrations/|cli/|test/)', pathNot: '^integrations/$1/' },
    },
    {
      name: 'framework-adapters-over-the-sdk',
      severity: 'error',
      comment:
        "A framework adapter is a thin layer over the SDK: no rule of its own bypasses it. (The OpenClaw plugin and the MCP proxy also share the processor's config validation and logger.)",
      from: { path: '^integrations/(ai-sdk|openai-agents|langchain|mastra)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(processors/|topology/|schemas/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|\\.stack|bench/data|test/hosts|test-output)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs'] },
  },
};
