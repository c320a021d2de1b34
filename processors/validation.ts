// Config validation messages: one line naming each zod issue's path.
import type { z } from 'zod';

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
