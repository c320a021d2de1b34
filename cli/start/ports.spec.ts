import { describe, expect, it } from 'vitest';
import { choosePorts } from './ports.js';

const taken =
  (...ports: number[]) =>
  async (p: number) =>
    !ports.includes(p);

describe("the embedded stack's ports", () => {
  it("are Kafka's and the registry's usual ones, 9092 and 8081, whenever they are free: the same addresses every time", async () => {
    expect(await choosePorts({}, taken())).toEqual({ kafka: 9092, registry: 8081, notes: [] });
    expect(await choosePorts({}, taken())).toEqual(await choosePorts({}, taken()));
  });

  it('give way to a free port when a usual one is taken, saying how to have a fixed address', async () => {
    const c = await choosePorts({}, taken(9092));
    expect(c).toMatchObject({ kafka: 0, registry: 8081 });
    expect(c.notes).toEqual(["port 9092, Kafka's usual one, is taken: using a free port this time (give --kafka-port to have the same address every time)"]);
  });

  it('are the ones the user picks, and a picked port that is taken is an error naming it and its flag', async () => {
    expect(await choosePorts({ kafka: 19092, registry: 18081 }, taken(9092, 8081))).toEqual({ kafka: 19092, registry: 18081, notes: [] });
    await expect(choosePorts({ registry: 18081 }, taken(18081))).rejects.toThrow(
      'port 18081 (--registry-port) is taken: stop what listens there, or choose another port with --registry-port',
    );
    await expect(choosePorts({ kafka: 9000, registry: 9000 }, taken())).rejects.toThrow('--kafka-port and --registry-port are both 9000');
  });

  it('take 0 as any free port', async () => {
    expect(await choosePorts({ kafka: 0 }, taken())).toEqual({ kafka: 0, registry: 8081, notes: [] });
  });
});
