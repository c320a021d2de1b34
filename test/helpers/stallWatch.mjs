// Loaded with `--import` into the hosts the tests start (the OpenClaw gateway): says on stderr
// when the process's event loop was held for more than two seconds, so a test that fails by
// timing tells a starved host from a slow loopguard.
const EVERY_MS = 250;
const SAY_OVER_MS = 2_000;
let last = Date.now();
setInterval(() => {
  const now = Date.now();
  const late = now - last - EVERY_MS;
  last = now;
  if (late > SAY_OVER_MS) process.stderr.write(`[stall-watch] the event loop was held ${late} ms, until ${new Date(now).toISOString()}\n`);
}, EVERY_MS).unref();
