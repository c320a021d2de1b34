// The requests the proxy is still answering, so a shutdown can let them finish first.
export class InFlight {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(p: Promise<T>): Promise<T> {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return p;
  }

  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
