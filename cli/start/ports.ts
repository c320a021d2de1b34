// Where the embedded Kafka and registry listen. The addresses go into configs a user writes
// once (a desktop app's MCP servers), so they are the same every time: Kafka's and the
// schema registry's usual ports, 9092 and 8081, unless the user picks others. A usual port
// that is taken (another Kafka, another registry) gives way to a free one, said in a note; a
// port the user picked that is taken is an error naming it.
import { createServer } from 'node:net';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';

export const USUAL_PORTS = { kafka: 9092, registry: 8081 } as const;

export interface PortChoice {
  readonly kafka: number;
  readonly registry: number;
  /** What the user should know: a usual port was taken and another is used. */
  readonly notes: readonly string[];
}

/** Whether something can listen on `port` of loopback now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const FLAGS = { kafka: '--kafka-port', registry: '--registry-port' } as const;
const WHAT = { kafka: 'Kafka', registry: 'the schema registry' } as const;

/** The ports to start the embedded stack on; `chosen` are the user's (absent: the usual one; 0: any free port, as in the result). */
export async function choosePorts(chosen: { kafka?: number; registry?: number }, free: (port: number) => Promise<boolean> = isFree): Promise<PortChoice> {
  const notes: string[] = [];
  const pick = async (which: 'kafka' | 'registry'): Promise<number> => {
    const asked = chosen[which];
    if (asked === 0) return 0;
    if (asked !== undefined) {
      if (await free(asked)) return asked;
      throw new LoopguardError(ERROR_CODES.usage, `port ${asked} (${FLAGS[which]}) is taken: stop what listens there, or choose another port with ${FLAGS[which]}`, {
        port: asked,
      });
    }
    const usual = USUAL_PORTS[which];
    if (await free(usual)) return usual;
    notes.push(`port ${usual}, ${WHAT[which]}'s usual one, is taken: using a free port this time (give ${FLAGS[which]} to have the same address every time)`);
    return 0;
  };
  const kafka = await pick('kafka');
  const registry = await pick('registry');
  if (kafka !== 0 && kafka === registry)
    throw new LoopguardError(ERROR_CODES.usage, `--kafka-port and --registry-port are both ${kafka}: give them different ports`, { port: kafka });
  return { kafka, registry, notes };
}
