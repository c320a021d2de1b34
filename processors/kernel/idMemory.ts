// A bounded memory of ids (redelivery detection) that states share without copying.
//
// States are immutable values, yet a run may remember thousands of ids, and copying them on
// every event would make each event cost as much as the whole memory. So the ids live in one
// append-only store shared by successive states; a state holds a view: the store and the
// sequence number it ends at. A view sees the entries below its end, at most `capacity` of the
// newest. Appending to the newest view extends the store in place (the older view still sees
// exactly what it saw, so keeping the old state is a rollback); appending to any other view
// copies the visible entries first, so forks never disturb each other. Compaction keeps the
// store within twice the capacity. The newest view and the one before it are always exact;
// an older view stays exact until `capacity` more ids have been appended after it.

interface Entry<V> {
  readonly seq: number;
  readonly value: V;
}

class Store<V> {
  readonly entries = new Map<string, Entry<V>>();
  next = 0;
}

export interface IdView<V> {
  readonly store: Store<V>;
  readonly end: number;
  readonly capacity: number;
}

export function emptyIds<V>(capacity: number): IdView<V> {
  return { store: new Store<V>(), end: 0, capacity };
}

function visible<V>(view: IdView<V>, e: Entry<V> | undefined): e is Entry<V> {
  return e !== undefined && e.seq < view.end && e.seq >= view.end - view.capacity;
}

export function lookupId<V>(view: IdView<V>, id: string): { readonly found: true; readonly value: V } | { readonly found: false } {
  const e = view.store.entries.get(id);
  return visible(view, e) ? { found: true, value: e.value } : { found: false };
}

/** The visible entries, oldest first. */
export function* idEntries<V>(view: IdView<V>): Generator<readonly [string, V]> {
  for (const [id, e] of view.store.entries) if (visible(view, e)) yield [id, e.value];
}

/** `f` of each visible entry, oldest first (idEntries without a generator and a pair per entry). */
export function mapIds<V, R>(view: IdView<V>, f: (id: string, value: V) => R): R[] {
  const out: R[] = [];
  for (const [id, e] of view.store.entries) if (visible(view, e)) out.push(f(id, e.value));
  return out;
}

/** A view that also remembers `id` (which it must not see yet). */
export function rememberId<V>(view: IdView<V>, id: string, value: V): IdView<V> {
  const existing = view.store.entries.get(id);
  // In place only on the newest view, and only over an entry that neither it nor the view
  // before it can see; otherwise copy what this view sees first.
  // An empty view starts a store of its own, so shared empty states never collect ids.
  if (view.end === 0) return rememberFresh(id, value, view.capacity);
  const inPlace = view.store.next === view.end && !Object.isFrozen(view.store) && (existing === undefined || existing.seq < view.end - 1 - view.capacity);
  const store = inPlace ? view.store : copyVisible(view);
  store.entries.delete(id); // so insertion order stays sequence order
  store.entries.set(id, { seq: store.next, value });
  store.next++;
  if (store.entries.size > 2 * view.capacity) compact(store, store.next - 1 - view.capacity);
  return { store, end: store.next, capacity: view.capacity };
}

function rememberFresh<V>(id: string, value: V, capacity: number): IdView<V> {
  const store = new Store<V>();
  store.entries.set(id, { seq: 0, value });
  store.next = 1;
  return { store, end: 1, capacity };
}

/** Views built from restored entries, oldest first. */
export function idsFrom<V>(entries: Iterable<readonly [string, V]>, capacity: number): IdView<V> {
  let view = emptyIds<V>(capacity);
  for (const [id, value] of entries) view = rememberId(view, id, value);
  return view;
}

function copyVisible<V>(view: IdView<V>): Store<V> {
  const store = new Store<V>();
  for (const [id, e] of view.store.entries) {
    if (!visible(view, e)) continue;
    store.entries.set(id, { seq: store.next++, value: e.value });
  }
  return store;
}

function compact<V>(store: Store<V>, keepFrom: number): void {
  for (const [id, e] of store.entries) if (e.seq < keepFrom) store.entries.delete(id);
}
