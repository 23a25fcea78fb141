/**
 * Finds words of the other language in text the admin page shows: in Chinese mode, English words; in
 * English mode, Chinese characters. Identifiers (app ids, openids, zones, codes such as window_closed or
 * media_id, file names, URLs) are values, not words, and are left alone.
 */

/** English (or mixed) names that stay as they are on a Chinese page, as WeChat's own console writes them. */
export const ALLOWED_ENGLISH = new Set([
  'AppID',
  'AppSecret',
  'OpenID',
  'Token',
  'EncodingAESKey',
  'EventKey',
  'URL',
  'JSON',
  'API',
  'ID',
  // WeChat's console: IP白名单.
  'IP',
  // A unit.
  'KB',
  'KEY',
  'WeChat',
  'JavaScript',
  'Ctrl',
  'IANA',
  'English',
  // The one field of WeChat's customer-service payload the JSON form leaves out.
  'touser',
]);

/**
 * Chinese on an English page: the language switch, and the names of WeChat's console screens and
 * settings, given in parentheses because that console is in Chinese.
 */
export const ALLOWED_CHINESE = new Set([
  '中文',
  '服务器配置',
  '设置与开发',
  '基本配置',
  '消息加解密方式',
  '明文模式',
  '兼容模式',
  '安全模式',
  '消息管理',
  '群发与通知',
  '素材管理',
]);

/**
 * A token with a digit or one of `_ / * ? = & % #`, a leading `.`, or an inner `.` or `-` is an identifier
 * or a value (a code, a path, a query, a file name, a version).
 */
const IDENTIFIER = /[0-9_/*?=&%#]|^\.|.[.-]./;
const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]+/g;

/** The foreign words in `text` for a page in `language`, each once, in order of appearance. */
export function foreignWords(text: string, language: 'zh-CN' | 'en'): string[] {
  const found =
    language === 'en'
      ? (text.match(CJK) ?? []).filter((run) => !ALLOWED_CHINESE.has(run))
      : text
          .replace(/<[^>]*>/g, ' ')
          .replace(/https?:\/\/\S+/g, ' ')
          .split(/[^A-Za-z0-9_.\-/*:?=&%#]+/)
          .map((token) => token.replace(/[.:?-]+$/, ''))
          .filter((token) => /[A-Za-z]{2}/.test(token) && !IDENTIFIER.test(token))
          .filter((token) => !ALLOWED_ENGLISH.has(token));
  return [...new Set(found)];
}
