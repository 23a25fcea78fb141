import { ndjsonLines, type NdjsonLine } from '../../../src/http/ndjson-lines';

const LIMIT = 16;

async function linesOf(chunks: string[]): Promise<NdjsonLine[]> {
  async function* body() {
    for (const c of chunks) yield Buffer.from(c);
  }
  const out: NdjsonLine[] = [];
  for await (const line of ndjsonLines(body(), LIMIT)) out.push(line);
  return out;
}

const ok = (text: string): NdjsonLine => ({ tooLong: false, text });
const TOO_LONG: NdjsonLine = { tooLong: true };

describe('ndjsonLines', () => {
  it('splits lines across chunk boundaries, keeping empty lines and a last line without a newline', async () => {
    expect(await linesOf(['a\nb', 'c\n\nd'])).toEqual([ok('a'), ok('bc'), ok(''), ok('d')]);
  });

  it('reports a line over the limit that arrives in one chunk, and goes on with the next', async () => {
    expect(await linesOf([`${'x'.repeat(LIMIT + 1)}\nnext\n`])).toEqual([TOO_LONG, ok('next')]);
  });

  it('reports a line over the limit that arrives in many chunks, even when no chunk alone exceeds it', async () => {
    expect(await linesOf(['x'.repeat(LIMIT), 'x', 'xx\nnext'])).toEqual([TOO_LONG, ok('next')]);
  });

  it('accepts a line of exactly the limit, and reports an over-long last line', async () => {
    expect(await linesOf([`${'x'.repeat(LIMIT)}\n`, 'y'.repeat(LIMIT + 5)])).toEqual([
      ok('x'.repeat(LIMIT)),
      TOO_LONG,
    ]);
  });

  it('decodes a multi-byte character split between two chunks', async () => {
    const bytes = Buffer.from('欢迎\n');
    async function* body() {
      yield bytes.subarray(0, 2);
      yield bytes.subarray(2);
    }
    const out: NdjsonLine[] = [];
    for await (const line of ndjsonLines(body(), LIMIT)) out.push(line);
    expect(out).toEqual([ok('欢迎')]);
  });
});
