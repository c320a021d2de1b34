import { describe, expect, it } from 'vitest';
import { openClawPluginConfig } from '../../topology/config.js';
import { eventsOf } from './guard.js';

describe('the events the plugin publishes', () => {
  it('are keyed and hashed as the processor reading the same entry wants them', () => {
    expect(eventsOf(openClawPluginConfig({ failure: 'open' }))).toEqual({ sendRaw: false, keyBy: 'run' });
    const profile = openClawPluginConfig({
      failure: 'open',
      sendRaw: true,
      loopDetection: { enabled: true, profile: 'openclaw' },
      processor: { keyToolEventsBy: 'session' },
    });
    expect(eventsOf(profile)).toEqual({ sendRaw: true, keyBy: 'session', profile: 'openclaw' });
  });
});
