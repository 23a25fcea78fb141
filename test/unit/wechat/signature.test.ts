import { sha1Signature, signatureMatches } from '../../../src/wechat/signature';

// Official vectors, reference/wechat.md §5.1, §5.2 and §5.4.
const TOKEN = 'AAAAA';

describe('sha1Signature', () => {
  it('signs the URL verification of the official vector (token, timestamp, nonce sorted)', () => {
    expect(sha1Signature([TOKEN, '1714036504', '1514711492'])).toBe(
      'f464b24fc39322e44b38aa78f5edd27bd1441696',
    );
  });

  it('signs the plaintext push of the official vector', () => {
    expect(sha1Signature([TOKEN, '1714037059', '486452656'])).toBe(
      '899cf89e464efb63f54ddac96b0a0a235f53aa78',
    );
  });

  it('gives the plain signature of the official safe-mode push', () => {
    expect(sha1Signature([TOKEN, '1714112445', '415670741'])).toBe(
      '6c5c811b55cc85e0e1b54100749188c20beb3f5d',
    );
  });

  it('does not depend on the order the parts are given in', () => {
    expect(sha1Signature(['1514711492', TOKEN, '1714036504'])).toBe(
      sha1Signature([TOKEN, '1714036504', '1514711492']),
    );
  });
});

describe('signatureMatches', () => {
  const parts = [TOKEN, '1714036504', '1514711492'];

  it('accepts the official signature', () => {
    expect(signatureMatches('f464b24fc39322e44b38aa78f5edd27bd1441696', parts)).toBe(true);
  });

  it('refuses a signature made with another token', () => {
    expect(signatureMatches(sha1Signature(['BBBBB', '1714036504', '1514711492']), parts)).toBe(false);
  });

  it('refuses a missing, empty, truncated or uppercased signature', () => {
    expect(signatureMatches(undefined, parts)).toBe(false);
    expect(signatureMatches('', parts)).toBe(false);
    expect(signatureMatches('f464b24fc39322e44b38aa78f5edd27bd144169', parts)).toBe(false);
    expect(signatureMatches('F464B24FC39322E44B38AA78F5EDD27BD1441696', parts)).toBe(false);
  });

  it('refuses 40 non-ASCII characters without throwing', () => {
    expect(signatureMatches('é'.repeat(40), parts)).toBe(false);
  });
});
