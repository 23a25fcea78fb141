import { readFileSync } from 'node:fs';
import path from 'node:path';
import { aSequence, aStep, aTextMessage, aWindowPolicy } from './support/builders';
import { anAccount, startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  // WeChat's rule for a follow: 3 messages within a minute.
  world = await startWorld({ name: 'error-rules', accounts: [anAccount({ windowPolicy: aWindowPolicy() })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

interface Detail {
  path: string;
  message: string;
  rule?: { kind: string } & Record<string, unknown>;
}

/** The section of docs/api.md that lists the rule kinds. */
const documented = (): string => {
  const api = readFileSync(path.join(__dirname, '../../docs/api.md'), 'utf8');
  return api.slice(api.indexOf('## Error rules'), api.indexOf('\n## ', api.indexOf('## Error rules') + 1));
};

async function refused(body: unknown): Promise<Detail[]> {
  const before = ((await world.api('/v1/sequences')).body as { sequences: unknown[] }).sequences.length;
  const res = await world.api('/v1/sequences', { json: body });
  expect(res.status).toBe(400);
  expect(((await world.api('/v1/sequences')).body as { sequences: unknown[] }).sequences).toHaveLength(
    before,
  );
  return (res.body as { error: { details: Detail[] } }).error.details;
}

describe('HTTP API', () => {
  describe('Error rules', () => {
    it('each problem of a refused request carries its rule beside the English, for a client to word in its own language', async () => {
      const details = await refused({ ...aSequence(), name: '', colour: 'red' });
      expect(details).toEqual(
        expect.arrayContaining([
          {
            path: 'name',
            message: 'must not be empty',
            rule: { kind: 'too_small', origin: 'string', minimum: 1, inclusive: true },
          },
          { path: 'colour', message: 'is not a known field', rule: { kind: 'unknown_field' } },
        ]),
      );
    });

    it('a step outside the contact window names the window it misses, by its numbers', async () => {
      const late = aStep({ offsetMs: 2 * 3_600_000, message: aTextMessage('two hours later') });
      const details = await refused(aSequence({ steps: [aStep(), late] }));
      expect(details).toEqual([
        {
          path: 'steps.1',
          message: expect.stringContaining('falls outside the contact window') as string,
          rule: { kind: 'window_late', interaction: 'subscribe', count: 3, windowMs: 60_000, position: 2 },
        },
      ]);
    });

    it('docs/api.md lists every kind these answers used', async () => {
      const kinds = [
        ...(await refused({ ...aSequence(), name: '', colour: 'red', oncePerFollower: 'yes' })),
        ...(await refused(aSequence({ trigger: { type: 'sometimes' } as never }))),
      ].map((d) => d.rule?.kind);
      expect(kinds).not.toContain(undefined);
      for (const kind of new Set(kinds)) expect(documented()).toContain(`\`${kind}\``);
    });
  });
});
