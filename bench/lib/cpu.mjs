// CPU time of the machine and of named processes, sampled on a timer, so that the CPU spent in a
// window known only afterwards (from ready to the last output) can be read back. Linux only
// (/proc); elsewhere every figure is undefined.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/stat and /proc/PID/stat (USER_HZ: 100 on Linux). */
const TICK_MS = 10;

function read(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Busy CPU of the whole machine, ms summed over cores (everything but idle and iowait). */
export function machineBusyMs() {
  const line = read('/proc/stat')?.split('\n', 1)[0];
  if (line === undefined || !line.startsWith('cpu ')) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) * TICK_MS;
}

/** User + system CPU of a process, ms. */
export function processCpuMs(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces and parentheses): utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * Samples `pids()` (name → pid, read at every sample: a process may start later) and the
 * machine every `everyMs`. `between(from, to)` gives each one's CPU ms in that window of
 * Date.now() times, from the samples nearest its ends (undefined for a process not seen at both).
 */
export function cpuSampler(pids, everyMs = 50) {
  const samples = [];
  const take = () => {
    const cpu = { machine: machineBusyMs(), bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
    for (const [name, pid] of Object.entries(pids())) if (pid !== undefined) cpu[name] = processCpuMs(pid);
    samples.push({ t: Date.now(), cpu });
  };
  take();
  const timer = setInterval(take, everyMs);
  const nearest = (t) => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best));
  return {
    stop() {
      take();
      clearInterval(timer);
    },
    between(from, to) {
      const a = nearest(from);
      const b = nearest(to);
      const out = { ms: b.t - a.t };
      for (const name of Object.keys(b.cpu)) {
        const x = a.cpu[name];
        const y = b.cpu[name];
        out[name] = x === undefined || y === undefined ? undefined : y - x;
      }
      return out;
    },
  };
}
