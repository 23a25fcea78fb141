import type { ShownTemplate } from './templates';

/** The channel a send came in on. */
export type SimChannel = 'custom' | 'template' | 'notice';

/** One accepted send, as listed by `GET /__sim/messages`. */
export interface ReceivedMessage {
  /** Increases by one per accepted send, for the life of the simulator (a reset does not restart it). */
  readonly seq: number;
  readonly appId: string;
  readonly openid: string;
  readonly channel: SimChannel;
  /** The custom msgtype, or `template`. */
  readonly msgtype: string;
  /** The request body as parsed JSON. */
  readonly body: unknown;
  /** Epoch ms. */
  readonly receivedAt: number;
  /**
   * Template sends: what the follower sees — the template's title and fields, without `first`, `remark`,
   * colours, emoji and line breaks (WeChat's rules since 2023-05-04).
   */
  readonly shown?: ShownTemplate;
}

/** Filter of `messages()`: every field optional; `since` is exclusive. */
export interface MessageFilter {
  readonly appId?: string;
  readonly openid?: string;
  readonly since?: number;
  readonly limit?: number;
}

// Benchmarks push a million sends: keep the raw body text (compact) and parse it only when listed.
interface StoredMessage {
  readonly seq: number;
  readonly appId: string;
  readonly openid: string;
  readonly channel: SimChannel;
  readonly msgtype: string;
  readonly raw: string;
  readonly receivedAt: number;
  readonly shown?: ShownTemplate;
}

const DEDUP_WINDOW_MS = 10 * 60 * 1000;

/** What the simulator received: the message log and template `client_msg_id` memory. */
export interface MessageStore {
  record(m: Omit<StoredMessage, 'seq'>): number;
  list(filter?: MessageFilter): { messages: ReceivedMessage[]; hasMore: boolean };
  /** The msgid of an earlier template send with this key within 10 minutes, if any. */
  findDuplicate(appId: string, openid: string, clientMsgId: string, at: number): number | undefined;
  rememberClientMsgId(appId: string, openid: string, clientMsgId: string, msgid: number, at: number): void;
  /** Forgets everything received; returns how many messages were dropped. */
  reset(): number;
  readonly size: number;
}

/** Creates an empty store. */
export function createMessageStore(): MessageStore {
  let messages: StoredMessage[] = [];
  let nextSeq = 1;
  // Insertion order is expiry order (one fixed window), so expired keys are always at the front.
  let seen = new Map<string, { msgid: number; expiresAt: number }>();

  function forgetExpired(at: number): void {
    for (const [key, entry] of seen) {
      if (entry.expiresAt > at) break;
      seen.delete(key);
    }
  }

  return {
    record(m) {
      const seq = nextSeq++;
      messages.push({ seq, ...m });
      return seq;
    },
    list(filter = {}) {
      const limit = filter.limit ?? Number.MAX_SAFE_INTEGER;
      // Seqs are contiguous within the log, so `since` maps straight to an index.
      const first = messages.length > 0 ? messages[0].seq : nextSeq;
      const out: ReceivedMessage[] = [];
      let hasMore = false;
      for (let i = Math.max(0, (filter.since ?? 0) - first + 1); i < messages.length; i++) {
        const m = messages[i];
        if (filter.appId !== undefined && m.appId !== filter.appId) continue;
        if (filter.openid !== undefined && m.openid !== filter.openid) continue;
        if (out.length === limit) {
          hasMore = true;
          break;
        }
        const { raw, ...rest } = m;
        out.push({ ...rest, body: JSON.parse(raw) as unknown });
      }
      return { messages: out, hasMore };
    },
    findDuplicate(appId, openid, clientMsgId, at) {
      forgetExpired(at);
      return seen.get(`${appId}\n${openid}\n${clientMsgId}`)?.msgid;
    },
    rememberClientMsgId(appId, openid, clientMsgId, msgid, at) {
      seen.set(`${appId}\n${openid}\n${clientMsgId}`, { msgid, expiresAt: at + DEDUP_WINDOW_MS });
    },
    reset() {
      const dropped = messages.length;
      messages = [];
      seen = new Map();
      return dropped;
    },
    get size() {
      return messages.length;
    },
  };
}
