import { msgtypeName } from './describe.js';
import { t } from './i18n/index.js';
import type { Json } from './types.js';

/** A one-line summary of a WeChat payload for tables ("文本：欢迎关注…", "news: 春季课程"). */
export function summarize(message: Json | null, max = 60): string {
  const words = t().summary;
  if (!message) return words.deleted;
  const type = typeof message.msgtype === 'string' ? message.msgtype : null;
  if (!type) {
    return typeof message.template_id === 'string' ? words.template(message.template_id) : words.message;
  }
  const body = (message[type] ?? {}) as Record<string, unknown>;
  const article = Array.isArray(body.articles) ? (body.articles[0] as Record<string, unknown>) : {};
  const text = [
    body.content,
    body.title,
    article.title,
    body.head_content,
    body.media_id,
    body.article_id,
  ].find((v): v is string => typeof v === 'string' && v !== '');
  const plain = (text ?? '').replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');
  const name = msgtypeName(type);
  return plain ? words.of(name, plain.length > max ? `${plain.slice(0, max)}…` : plain) : name;
}
