/** One line of an NDJSON body: its text, or only the fact that it was longer than allowed. */
export type NdjsonLine = { readonly tooLong: false; readonly text: string } | { readonly tooLong: true };

/**
 * Splits a byte stream into lines, holding at most `maxLineBytes` of any one line: a longer line is
 * reported as `tooLong` (whether it arrived in one chunk or many) and the rest of it is dropped as it
 * arrives. Splitting bytes rather than decoded text is safe because 0x0A never occurs inside a multi-byte
 * UTF-8 character, and a character straddling two chunks is decoded whole, with its line.
 */
export async function* ndjsonLines(
  body: AsyncIterable<Buffer>,
  maxLineBytes: number,
): AsyncGenerator<NdjsonLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  const take = (piece: Buffer) => {
    if (tooLong) return;
    size += piece.length;
    if (size > maxLineBytes) {
      tooLong = true;
      parts = [];
    } else if (piece.length > 0) parts.push(piece);
  };
  const finish = (): NdjsonLine => {
    const line: NdjsonLine = tooLong
      ? { tooLong: true }
      : { tooLong: false, text: Buffer.concat(parts, size).toString('utf8') };
    parts = [];
    size = 0;
    tooLong = false;
    return line;
  };

  for await (const chunk of body) {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      take(chunk.subarray(start, newline));
      yield finish();
      start = newline + 1;
    }
    take(chunk.subarray(start));
  }
  if (size > 0 || tooLong) yield finish();
}
