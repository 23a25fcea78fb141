import { en } from '../../../admin/src/i18n/en';
import { zhCN } from '../../../admin/src/i18n/zh-CN';
import { foreignWords } from '../../helpers/language-scan';

type Leaf = { path: string; shape: string; texts: string[] };

/**
 * Every leaf of a catalog: its path, its shape (a string, an array of n, a function of n parameters) and
 * the text it gives (a function is called with sample arguments: numbers, or lists where it joins one).
 */
function leaves(node: unknown, path = ''): Leaf[] {
  if (typeof node === 'string') return [{ path, shape: 'string', texts: [node] }];
  if (typeof node === 'function') {
    const fn = node as (...args: unknown[]) => string;
    const call = (arg: unknown) => fn(...Array.from({ length: fn.length }, () => arg));
    let text: string;
    try {
      text = call(7);
    } catch {
      text = call([7]);
    }
    // A word made of an API answer's field (the English catalog's errors) has none from a number: String().
    return [{ path, shape: `function/${fn.length}`, texts: [String(text)] }];
  }
  if (Array.isArray(node)) return [{ path, shape: `array/${node.length}`, texts: node.map(String) }];
  return Object.entries(node as Record<string, unknown>).flatMap(([key, value]) =>
    leaves(value, path ? `${path}.${key}` : key),
  );
}

const shapes = (catalog: unknown) => leaves(catalog).map((l) => `${l.path}: ${l.shape}`);

describe('the admin page catalogs', () => {
  it('have the same keys in both languages, each with the same shape', () => {
    expect(shapes(en)).toEqual(shapes(zhCN));
    expect(leaves(zhCN).length).toBeGreaterThan(300);
  });

  it('the Chinese one holds no English word, the English one no Chinese beyond WeChat console names', () => {
    const foreign = (catalog: unknown, language: 'zh-CN' | 'en') =>
      leaves(catalog).flatMap((l) =>
        l.texts.flatMap((text) => foreignWords(text, language).map((w) => `${l.path}: ${w}`)),
      );
    expect(foreign(zhCN, 'zh-CN')).toEqual([]);
    expect(foreign(en, 'en')).toEqual([]);
  });
});

describe('foreignWords', () => {
  it('finds English words on a Chinese page, and leaves names, identifiers and URLs alone', () => {
    expect(
      foreignWords(
        '已发送 3 条 · Sent today · AppID wx0123 Asia/Shanghai window_closed .env https://a.b/c',
        'zh-CN',
      ),
    ).toEqual(['Sent', 'today']);
  });

  it('finds Chinese on an English page, except the WeChat console names', () => {
    expect(foreignWords('Server URL (服务器配置) · 已发送: 3 sent', 'en')).toEqual(['已发送']);
  });
});

describe('time zones', () => {
  it('the Chinese page names Asia/Shanghai 北京时间, and other zones by their IANA names', () => {
    expect(zhCN.time.zone('Asia/Shanghai')).toBe('北京时间');
    expect(zhCN.time.zone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(zhCN.chart.perMinute('Asia/Shanghai')).toContain('北京时间');
    expect(en.time.zone('Asia/Shanghai')).toBe('Asia/Shanghai');
  });
});
