// Imported first by main.ts, so it runs before any module builds a schema: zod reads
// `jitless` when a schema is built, not when it parses. Config is parsed once per process, and
// zod's compiled parsers (new Function) cost more to generate than they save.
import * as z from 'zod';

z.config({ jitless: true });
