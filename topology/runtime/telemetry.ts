// What `loopguard run` tells operators: Prometheus metrics and the two probes. The processor
// reports through the Telemetry interface; only this module knows prom-client and HTTP.
import { createServer, type Server } from 'node:http';
import client from 'prom-client';
import type { Logger } from '../logger.js';
import type { Decision } from '../topology.js';

/** How a decision is counted: its kind, verdict, why, and whether it was made in shadow mode. */
export interface DecisionLabels {
  readonly type: Decision['type'];
  /** allow / warn / block / run_abort / deliver / suppress. */
  readonly decision: string;
  /** Tool decisions and run_abort: the detector; bot decisions: the reason. */
  readonly why: string | null;
  readonly shadow: boolean;
}

export function decisionLabels(d: Decision): DecisionLabels {
  const shadow = d.shadow === true;
  if (d.type === 'run_abort') return { type: d.type, decision: d.type, why: d.detector, shadow };
  if (d.type === 'tool_decision') return { type: d.type, decision: d.decision, why: d.detector, shadow };
  return { type: d.type, decision: d.decision, why: d.reason, shadow };
}

export interface Telemetry {
  /**
   * `count` events of `type` folded (a batch reports each type once). `count` is required so a
   * wrapper that forwards to another Telemetry cannot drop it and count one per batch.
   */
  event(type: string, count: number): void;
  /** `count` decisions with these labels published (a batch reports each label set once). */
  decision(labels: DecisionLabels, count: number): void;
  deadLetter(reason: string): void;
  /** A bounded collection of a key's state forgot something (docs/behaviour.md §1 "Limits"). */
  stateDrop(topic: string, what: string): void;
  /** A guard started a cooldown (docs/behaviour.md §4.6: slow_loop). */
  trip(what: string, shadow: boolean): void;
  lag(topic: string, partition: number, lag: number): void;
  restored(topic: string, seconds: number, records: number): void;
  /** Seconds from the input record's append time to its decision being durable. */
  latency(seconds: number): void;
  batch(seconds: number): void;
  setReady(ready: boolean): void;
  setLive(live: boolean): void;
}

export const NO_TELEMETRY: Telemetry = {
  event: () => {},
  decision: () => {},
  deadLetter: () => {},
  stateDrop: () => {},
  trip: () => {},
  lag: () => {},
  restored: () => {},
  latency: () => {},
  batch: () => {},
  setReady: () => {},
  setLive: () => {},
};

export class PrometheusTelemetry implements Telemetry {
  readonly registry = new client.Registry();
  private ready = false;
  private live = true;
  private readonly events = new client.Counter({ name: 'loopguard_events_total', help: 'Events folded, by event type.', labelNames: ['type'], registers: [this.registry] });
  private readonly decisions = new client.Counter({
    name: 'loopguard_decisions_total',
    help: 'Decisions published, by type, decision, detector (tool decisions, run_abort) or reason (bot decisions), and whether made in shadow mode (obeyed as allow / deliver).',
    labelNames: ['type', 'decision', 'detector', 'reason', 'shadow'],
    registers: [this.registry],
  });
  private readonly escalations = new client.Counter({
    name: 'loopguard_escalations_total',
    help: 'Runs ended because the model kept retrying blocked calls (run_abort, block_escalation), by shadow mode.',
    labelNames: ['shadow'],
    registers: [this.registry],
  });
  private readonly trips = new client.Counter({
    name: 'loopguard_trips_total',
    help: 'Cooldowns started, by guard (slow_loop: a slow bot loop, docs/behaviour.md §4.6) and shadow mode.',
    labelNames: ['what', 'shadow'],
    registers: [this.registry],
  });
  private readonly deadLetters = new client.Counter({
    name: 'loopguard_dead_letters_total',
    help: 'Input records sent to the dead-letter topic, by reason.',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private readonly stateDrops = new client.Counter({
    name: 'loopguard_state_drops_total',
    help: 'Entries a bounded per-key collection forgot to stay within its limit, by input topic and what was dropped.',
    labelNames: ['topic', 'what'],
    registers: [this.registry],
  });
  private readonly lagGauge = new client.Gauge({
    name: 'loopguard_consumer_lag',
    help: 'Records behind the high watermark after the last batch, per input partition.',
    labelNames: ['topic', 'partition'],
    registers: [this.registry],
  });
  private readonly restore = new client.Histogram({
    name: 'loopguard_restore_duration_seconds',
    help: 'Time to restore partition state from a changelog.',
    labelNames: ['topic'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly restoredRecords = new client.Counter({
    name: 'loopguard_restored_records_total',
    help: 'Changelog records read while restoring.',
    labelNames: ['topic'],
    registers: [this.registry],
  });
  private readonly latencyHist = new client.Histogram({
    name: 'loopguard_decision_latency_seconds',
    help: "From an input record's append time to its decision being durable.",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly batchHist = new client.Histogram({
    name: 'loopguard_batch_duration_seconds',
    help: 'Time to decode, fold and make one batch durable.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly readyGauge = new client.Gauge({ name: 'loopguard_ready', help: '1 when every assigned partition has restored its state.', registers: [this.registry] });
  private readonly clientGauge = new client.Gauge({
    name: 'loopguard_kafka_client_info',
    help: 'The Kafka client library in use (1 for the one named by the label).',
    labelNames: ['client'],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'loopguard_' });
  }

  event(type: string, count: number): void {
    this.events.inc({ type }, count);
  }
  decision(l: DecisionLabels, count: number): void {
    const bot = l.type === 'bot_decision';
    const shadow = String(l.shadow);
    this.decisions.inc({ type: l.type, decision: l.decision, detector: bot ? 'none' : (l.why ?? 'none'), reason: bot ? (l.why ?? 'none') : 'none', shadow }, count);
    if (l.why === 'block_escalation') this.escalations.inc({ shadow }, count);
  }
  deadLetter(reason: string): void {
    this.deadLetters.inc({ reason });
  }
  trip(what: string, shadow: boolean): void {
    this.trips.inc({ what, shadow: String(shadow) });
  }
  stateDrop(topic: string, what: string): void {
    this.stateDrops.inc({ topic, what });
  }
  lag(topic: string, partition: number, lag: number): void {
    this.lagGauge.set({ topic, partition: String(partition) }, lag);
  }
  restored(topic: string, seconds: number, records: number): void {
    this.restore.observe({ topic }, seconds);
    this.restoredRecords.inc({ topic }, records);
  }
  latency(seconds: number): void {
    this.latencyHist.observe(seconds);
  }
  batch(seconds: number): void {
    this.batchHist.observe(seconds);
  }
  setReady(ready: boolean): void {
    this.ready = ready;
    this.readyGauge.set(ready ? 1 : 0);
  }
  setLive(live: boolean): void {
    this.live = live;
  }
  kafkaClient(name: string): void {
    this.clientGauge.set({ client: name }, 1);
  }

  /** GET /metrics, /healthz (alive: the consumer has not died), /readyz (state restored). */
  serve(port: number, host: string, log: Logger): Promise<Server> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/metrics') {
        this.registry.metrics().then(
          (body) => {
            res.writeHead(200, { 'content-type': this.registry.contentType });
            res.end(body);
          },
          (e) => {
            res.writeHead(500);
            res.end(String(e));
          },
        );
      } else if (path === '/healthz') {
        res.writeHead(this.live ? 200 : 503, { 'content-type': 'text/plain' }).end(this.live ? 'ok\n' : 'consumer stopped\n');
      } else if (path === '/readyz') {
        res.writeHead(this.ready ? 200 : 503, { 'content-type': 'text/plain' }).end(this.ready ? 'ready\n' : 'restoring state\n');
      } else {
        res.writeHead(404).end();
      }
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        const addr = server.address();
        log.info({ port: typeof addr === 'object' && addr ? addr.port : port, host }, 'serving /metrics, /healthz, /readyz');
        resolve(server);
      });
    });
  }
}
