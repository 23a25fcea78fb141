import { en } from './en.js';
import { zhCN, type Catalog } from './zh-CN.js';

export type { Catalog } from './zh-CN.js';

/** The page's languages, the default first: marketing teams in China read Simplified Chinese. */
export const LANGUAGES = ['zh-CN', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the switch in the header shows for each language, in that language. */
export const LANGUAGE_NAMES: Record<Language, string> = { 'zh-CN': '中文', en: 'English' };

/** The choice is remembered per browser (not per tab, unlike the token). */
const KEY = 'wechat-drip.language';

/**
 * A catalog that throws on a key it does not have, naming it, instead of answering undefined (which the
 * DOM builder would silently leave out): a missing word is a script error, which the browser tests catch.
 */
function strict<T extends object>(catalog: T, path: string): T {
  return new Proxy(catalog, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key in target) {
        const value: unknown = Reflect.get(target, key, receiver);
        return value !== null && typeof value === 'object' ? strict(value, `${path}.${String(key)}`) : value;
      }
      throw new Error(`the ${path} catalog has no key "${key}"`);
    },
  });
}

const CATALOGS: Record<Language, Catalog> = {
  'zh-CN': strict(zhCN, 'zh-CN'),
  en: strict(en, 'en'),
};

/** The language chosen in this browser, or the default. */
export function currentLanguage(): Language {
  const saved = localStorage.getItem(KEY);
  return LANGUAGES.find((l) => l === saved) ?? LANGUAGES[0];
}

/** Remembers the choice and sets `<html lang>` (which also picks the right Han glyph forms). */
export function chooseLanguage(language: Language): void {
  localStorage.setItem(KEY, language);
  document.documentElement.lang = language;
}

/** The words of the current language. Pages call it when they render, so a switch re-renders in the new one. */
export function t(): Catalog {
  return CATALOGS[currentLanguage()];
}

/** Whether `key` is one of `map`'s keys (for lookups by a code the API sends, which may be new). */
export function hasKey<K extends string>(map: Record<K, unknown>, key: string): key is K {
  return Object.prototype.hasOwnProperty.call(map, key);
}
