// Turning untrusted objects into events: a result, never an exception, so the runtime can
// dead-letter with the reason and `replay` can name the line.
import type { z } from 'zod';

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, reason: formatIssues(r.error.issues) };
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
