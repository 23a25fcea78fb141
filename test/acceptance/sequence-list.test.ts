import { aSequence } from './support/builders';
import { startWorld, type World } from './support/world';

// docs/sequences.md "Sequences": `GET /v1/sequences` gives the sequences newest first, a page at a time.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'sequence-list' });
}, 60_000);
afterAll(() => world?.close(), 30_000);

interface Page {
  sequences: { id: string; name: string }[];
  next: string | null;
}

describe('Sequences', () => {
  it('lists the sequences newest first, `limit` a page, following `next` to the last page, each once', async () => {
    const created: string[] = [];
    // Created in one burst: several may share a creation time to the millisecond.
    for (let i = 0; i < 7; i++) {
      created.push((await world.api.createSequence(aSequence({ status: 'draft', name: `page ${i}` }))).id);
    }

    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page } = await world.api(
        `/v1/sequences?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(res.status).toBe(200);
      pages.push(res.body);
      cursor = res.body.next;
    } while (cursor !== null && pages.length < 10);

    expect(pages.map((p) => p.sequences.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((p) => p.sequences.map((s) => s.id))).toEqual([...created].reverse());
    expect(pages.at(-1)!.next).toBeNull();
    // Without limit: a page of 100, all 7 on it.
    expect((await world.api('/v1/sequences')).body).toMatchObject({ next: null });
    expect((await world.api('/v1/sequences')).body.sequences).toHaveLength(7);
  });

  it('refuses a limit out of 1–500 or a cursor it did not give, naming the parameter', async () => {
    for (const [query, path] of [
      ['limit=0', 'query.limit'],
      ['limit=501', 'query.limit'],
      ['limit=ten', 'query.limit'],
      ['cursor=not-a-cursor', 'query.cursor'],
    ]) {
      const res = await world.api(`/v1/sequences?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        {
          path,
          message: expect.any(String),
          rule: expect.objectContaining({ kind: expect.any(String) }) as object,
        },
      ]);
    }
  });
});
