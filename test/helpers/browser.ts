// A real headless browser for tests that look at a page: Debian's Chromium, driven by
// playwright-core, with a fresh profile that the helper removes again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const open: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of open.splice(0)) await close();
});

export async function browser(): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'loopguard-chromium-'));
  const context = await chromium
    .launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1400, height: 900 } })
    .catch((e: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      throw e;
    });
  open.push(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}
