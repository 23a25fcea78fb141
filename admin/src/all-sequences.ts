import type { Api } from './api.js';
import type { Sequence } from './types.js';

/** A page of GET /v1/sequences: `next` is the cursor of the page after, null on the last. */
interface SequencePage {
  readonly sequences: Sequence[];
  readonly next: string | null;
}

/** Every sequence, newest first: GET /v1/sequences page after page (500 a page, the most it gives). */
export async function allSequences(api: Api): Promise<Sequence[]> {
  const all: Sequence[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: SequencePage = await api.get<SequencePage>(`/sequences?limit=500${query}`);
    all.push(...page.sequences);
    cursor = page.next;
  } while (cursor !== null);
  return all;
}
