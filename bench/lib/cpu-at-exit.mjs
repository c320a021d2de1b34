// Preloaded into a process (`node --import ./bench/lib/cpu-at-exit.mjs …`, or through
// bench/runtime.mjs's --node-arg) to append, as it exits, its CPU time and age as one JSON line
// to $LG_CPU_LOG: CPU per run holds up on a shared machine where wall-clock rates do not.
import { appendFileSync } from 'node:fs';

const file = process.env.LG_CPU_LOG;
if (file !== undefined && file !== '') {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    appendFileSync(file, JSON.stringify({ main: process.argv[1], cpuMs: Math.round((user + system) / 1e3), upMs: Math.round(process.uptime() * 1e3) }) + '\n');
  });
}
