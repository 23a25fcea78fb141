import { brokerNames } from '../../../src/broker/topology';
import { createLevelsTransport, levelHops } from '../../../src/broker/transports/levels';
import { createPluginTransport, PLUGIN_LIMIT_MS } from '../../../src/broker/transports/plugin';

const names = brokerNames('t', { unitMs: 100, count: 8 });

describe('levels transport', () => {
  const levels = createLevelsTransport(names, { unitMs: 100, count: 8 });

  it('writes the wait in units as bits, most significant first, and enters at the highest set bit', () => {
    const route = levels.route(1200); // aimed two units early: 10 units = 00001010
    expect(route.routingKey).toBe('0.0.0.0.1.0.1.0.due');
    expect(route.exchange).toBe('t.delay.100ms.03');
    expect(route.delayMs).toBe(1000);
    expect(levelHops(route)).toBe(2);
    expect(route.mandatory).toBe(true);
  });

  it('leaves the levels two to three units early (never late by rounding): the worker holds the rest', () => {
    expect(levels.earlyMs).toBe(300);
    for (const wait of [300, 301, 350, 399, 400, 1000, 1099, 12_345]) {
      const early = wait - levels.route(wait).delayMs;
      expect(early).toBeGreaterThanOrEqual(200);
      expect(early).toBeLessThan(levels.earlyMs);
    }
  });

  it('sends a wait under three units straight to the due queue, to be held whole', () => {
    expect(levels.route(299)).toEqual({ exchange: '', routingKey: 't.due', mandatory: true, delayMs: 0 });
    expect(levels.route(1).routingKey).toBe('t.due');
  });

  it('sends a wait of zero or less straight to the due queue', () => {
    expect(levels.route(0)).toEqual({ exchange: '', routingKey: 't.due', mandatory: true, delayMs: 0 });
    expect(levels.route(-5000).routingKey).toBe('t.due');
  });

  it('caps a longer wait at the longest chain, so the remainder is chained by the worker', () => {
    expect(levels.maxDelayMs).toBe(255 * 100);
    const route = levels.route(10 * 60 * 1000);
    expect(10 * 60 * 1000 - route.delayMs).toBeGreaterThan(levels.earlyMs); // re-delayed, not held
    expect(route.routingKey).toBe('1.1.1.1.1.1.1.1.due');
    expect(route.delayMs).toBe(levels.maxDelayMs);
  });
});

describe('plugin transport', () => {
  const plugin = createPluginTransport(names, 86_400_000);

  it('is never early by design: nothing to hold', () => {
    expect(plugin.earlyMs).toBe(0);
    expect(plugin.route(1).delayMs).toBe(1);
  });

  it('sends x-delay as a typed long even for small delays, never mandatory', () => {
    const route = plugin.route(100);
    expect(route.headers).toEqual({ 'x-delay': { '!': 'long', value: 100 } });
    expect(route.mandatory).toBe(false);
    expect(route.exchange).toBe('t.delayed');
  });

  it('caps the delay at the configured maximum and never above the plugin limit', () => {
    expect(plugin.route(2 * 86_400_000).delayMs).toBe(86_400_000);
    expect(createPluginTransport(names, Number.MAX_SAFE_INTEGER).maxDelayMs).toBe(PLUGIN_LIMIT_MS);
  });

  it('routes a due wake-up straight to the due queue, bypassing the plugin', () => {
    expect(plugin.route(0).exchange).toBe('');
  });
});
