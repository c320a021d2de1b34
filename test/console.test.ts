// The console as a person sees it: a real headless Chromium on the page `loopguard console`
// serves, while the processor decides on traffic produced onto a real broker.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browser } from './helpers/browser.js';
import { lg, lgOk, replayOf, waitFor, world, writeEvents, type Run } from './helpers/harness.js';

const OUTPUT = join(import.meta.dirname, '..', 'test-output');

function traffic(runId: string, conversationId: string, start: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  let ts = start;
  const args = { path: 'src/config.ts' };
  for (let i = 0; i < 22; i++) {
    const call = { sessionKey: `agent:main:${runId}`, runId, toolCallId: `${runId}-${i}`, toolName: 'read', args };
    events.push(
      { type: 'tool_call', ts: (ts += 600), ...call },
      { type: 'tool_outcome', ts: (ts += 400), ...call, result: { content: [{ type: 'text', text: 'export const retries = 3;' }] } },
    );
  }
  for (let i = 0; i < 25; i++) {
    const [senderId, receiverId] = i % 2 ? ['B0BETA', 'B0ALPHA'] : ['B0ALPHA', 'B0BETA'];
    events.push({ type: 'bot_message', ts: (ts += 200), channel: 'slack', accountId: 'T0ACME', conversationId, senderId, receiverId, eventId: `${conversationId}-${i}` });
  }
  return events;
}

interface Layout {
  readonly width: number;
  readonly column: { readonly left: number; readonly right: number };
  readonly feedLeft: number;
  readonly inColumn: ReadonlyArray<{ what: string; left: number; right: number; scrollWidth: number; clientWidth: number }>;
}

/** Run in the page (a string: the tests are typed without the DOM): where the columns and their parts are. */
const LAYOUT = `(() => {
  const box = (e) => e.getBoundingClientRect();
  const column = box(document.querySelector('main > .column'));
  const feed = box(document.querySelector('main > .feed-section'));
  const inColumn = [...document.querySelectorAll('main > .column :is(section, table, td, q)')].map((e) => ({
    what: e.tagName.toLowerCase() + '.' + e.className + ' ' + (e.textContent ?? '').slice(0, 40),
    left: box(e).left,
    right: box(e).right,
    scrollWidth: e.scrollWidth,
    clientWidth: e.clientWidth,
  }));
  return { width: window.innerWidth, column: { left: column.left, right: column.right }, feedLeft: feed.left, inColumn };
})()`;

/** The console's address, from the line it prints when it serves. */
async function consoleUrl(run: Run): Promise<string> {
  let url: string | undefined;
  await waitFor('the console to serve', () => (url = /loopguard console: (http:\/\/\S+)/.exec(run.output())?.[1]) !== undefined);
  return url!;
}

describe('loopguard console', () => {
  it('shows a blocked run with its message and a suppressed pair in cooldown, in a real browser', async () => {
    const w = world('console');
    // A long run id, as session-derived ones are: the runs table must still fit its column.
    const runId = `${w.name}-stuck-reader-0f8c2a9e-5b1d-4c7e-9a3f-2d6b8e1c4f7a`;
    const conversationId = `${w.name}-ops`;
    const events = writeEvents(w.name, traffic(runId, conversationId, Date.now() - 60_000));
    const expected = [...(await replayOf(w, events)).values()];
    const block = expected.filter((d) => d.decision === 'block' && d.runId === runId).at(-1);
    expect(block?.message).toEqual(expect.stringContaining('read'));
    expect(expected.some((d) => d.decision === 'suppress')).toBe(true);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const consoleRun = lg(['console', '--config', w.configFile, '--port', '0']);
    const url = await consoleUrl(consoleRun);
    const processor = lg(['run', '--config', w.configFile]);
    const context = await browser();
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('#link.live').waitFor({ timeout: 30_000 });
    await lgOk(['produce', '--config', w.configFile, events]);

    const run = page.locator(`tr[data-run="${runId}"]`);
    await run.waitFor({ timeout: 90_000 });
    await expect.poll(() => run.innerText(), { timeout: 30_000 }).toMatch(/block/i);
    expect(await run.innerText()).toContain('read');
    expect(
      await page
        .locator('tr.message-row')
        .filter({ hasText: block!.message as string })
        .count(),
    ).toBe(1);

    const pair = page.locator('tr[data-pair="B0ALPHA ↔ B0BETA"]');
    await pair.waitFor({ timeout: 90_000 });
    expect(await pair.innerText()).toMatch(/pair budget/);
    expect(await pair.innerText()).toContain(conversationId);

    await expect.poll(() => page.locator('#feed .item.block').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.locator('#feed .item.suppress').count()).toBeGreaterThan(0);
    expect(await page.locator('#feed .item.block q').first().innerText()).toContain('read');
    // what the block saw: its evidence (the calls that make up its count, and since when)
    const evidence = await page.locator('#feed .item.block .evidence').first().innerText();
    const shown = (block!.evidence as { toolCallIds: string[] }).toolCallIds;
    expect(evidence).toMatch(/since \d\d:\d\d:\d\d/);
    expect(evidence).toContain(`toolCallIds ${shown[0]!}`);
    await waitFor('every decision counted', async () => Number(await page.locator('.total.block .n').innerText()) === expected.filter((d) => d.decision === 'block').length);
    expect(Number(await page.locator('.total.suppress .n').innerText())).toBe(expected.filter((d) => d.decision === 'suppress').length);
    // Time left by stream time: against the newest decision, whenever the page is looked at.
    const until = Math.max(...expected.map((d) => (d.cooldownUntil as number | null) ?? 0));
    const left = Math.ceil((until - Math.max(...expected.map((d) => d.ts as number))) / 1000);
    await expect
      .poll(() => pair.locator('td.left strong').innerText(), { timeout: 10_000 })
      .toBe(left < 60 ? `${left}s` : `${Math.floor(left / 60)}m ${String(left % 60).padStart(2, '0')}s`);

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'console.png'), fullPage: true });
    // At 1400 px (the browser's viewport) nothing in the left column is clipped or runs under
    // the feed: the run's message wraps inside its column (issue 30).
    const layout = await page.evaluate<Layout>(LAYOUT);
    expect(layout.width).toBe(1400);
    expect(layout.column.right).toBeLessThanOrEqual(layout.feedLeft);
    const messages = layout.inColumn.filter((e) => e.what.startsWith('q.'));
    expect(messages.length).toBeGreaterThan(0);
    for (const e of layout.inColumn) {
      expect(e.scrollWidth, `${e.what} is clipped`).toBeLessThanOrEqual(e.clientWidth);
      expect(e.left, `${e.what} starts left of its column`).toBeGreaterThanOrEqual(layout.column.left - 0.5);
      expect(e.right, `${e.what} runs past its column into the feed`).toBeLessThanOrEqual(layout.column.right + 0.5);
    }

    consoleRun.child.kill('SIGINT');
    processor.child.kill('SIGTERM');
    expect(await consoleRun.exited()).toBe(0);
    expect(await processor.exited()).toBe(0);
  });
});
