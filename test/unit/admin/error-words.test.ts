import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { zhCheckAnswer, zhDetail, zhRefusal } from '../../../admin/src/i18n/zh-CN-errors';
import { foreignWords } from '../../helpers/language-scan';

const ROOT = path.join(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : [],
  );
}

/**
 * Every rule kind the service can put on a detail: those written in src/ (`rule: { kind: 'x'`, a
 * refinement's `params: { rule: 'x'`, `ruleOf`'s own), and the ones made from a code at run time.
 */
function kindsInSource(): string[] {
  // Made at run time: the input guard's codes, and the window check's two outcomes.
  const found = new Set<string>(['invalid_text', 'forbidden_key', 'window_late', 'window_full']);
  for (const file of sources(path.join(ROOT, 'src'))) {
    if (file.includes(`${path.sep}simulator${path.sep}`)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/rule: \{\s+(?:\.\.\.\w+,\s+)?kind: '([a-z_]+)'/g)) found.add(m[1]);
    for (const m of text.matchAll(/params: \{\s+rule: '([a-z_]+)'/g)) found.add(m[1]);
    if (file.endsWith('validation.ts'))
      for (const m of text.matchAll(/\{ kind: '([a-z_]+)'/g)) found.add(m[1]);
    if (file.endsWith('template-rules.ts'))
      for (const m of text.matchAll(/readonly kind: '([a-z_]+)'/g)) found.add(`template_${m[1]}`);
  }
  return [...found].sort();
}

/** Parameters of every kind at once: each word picks the ones it needs. */
const PARAMS = {
  origin: 'string',
  minimum: 3,
  maximum: 5,
  inclusive: true,
  expected: 'number',
  values: ['draft_1', 'active_2'],
  format: 'url',
  divisor: 5,
  interaction: 'subscribe',
  count: 3,
  windowMs: 60_000,
  position: 4,
  beforeCloseMs: 1_800_000,
  lastMs: 7_200_000,
  spanMs: 36_000_000,
  source: 'sequence',
  start: '22:00',
  end: '08:00',
  timeZone: 'Asia/Shanghai',
  index: 0,
  name: 'path_1',
  total: 120,
  step: 2,
  channel: 'template',
  key: 'thing1',
  chars: 25,
  templateId: 'tpl_1',
  known: ['tpl_2'],
  reason: 'errcode 48001',
};

describe('the Chinese words for the API’s refusals', () => {
  const kinds = kindsInSource();

  it('finds the rule kinds the service writes', () => {
    expect(kinds).toEqual(
      expect.arrayContaining(['required', 'too_small', 'window_late', 'path_loop', 'same_time']),
    );
    expect(kinds.length).toBeGreaterThan(40);
  });

  it.each(kinds)('words %s in Chinese, and docs/api.md lists it', (kind) => {
    const words = zhDetail({ path: 'x', message: 'English', rule: { ...PARAMS, kind } });
    expect(words).not.toMatch(/此项无效|undefined|NaN|\[object/);
    expect(foreignWords(words, 'zh-CN')).toEqual([]);
    expect(readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8')).toContain(`\`${kind}\``);
  });

  it('says a rule it does not know in Chinese, with its kind, rather than in English', () => {
    expect(zhDetail({ path: 'x', message: 'must be blue', rule: { kind: 'blue' } })).toBe('此项无效（blue）');
    expect(zhDetail({ path: 'x', message: 'must be blue' })).toBe('此项无效');
  });

  it('words lengths, counts and numbers as a form asks for them', () => {
    const too = (rule: Record<string, unknown>) =>
      zhDetail({ path: 'x', message: '', rule: { kind: 'too_small', inclusive: true, ...rule } });
    expect(too({ origin: 'string', minimum: 1 })).toBe('不能为空');
    expect(too({ origin: 'string', minimum: 3 })).toBe('至少 3 个字');
    expect(too({ origin: 'array', minimum: 2 })).toBe('至少 2 项');
    expect(too({ origin: 'number', minimum: 1 })).toBe('不能小于 1');
    expect(too({ origin: 'number', minimum: 0, inclusive: false })).toBe('应大于 0');
  });

  it('words refusals by code, an unknown one with its code', () => {
    expect(zhRefusal('sequence_archived')).toBe('该序列已归档，不能再修改');
    expect(zhRefusal('brand_new')).toBe('服务未接受此请求（brand_new）');
  });

  it('words WeChat’s refusal by its errcode when the answer carries one', () => {
    expect(zhRefusal('wechat_refused', 61004)).toContain('IP 白名单');
    expect(zhRefusal('wechat_refused', 45009)).toBe('微信拒绝了此请求（错误码 45009）');
    expect(zhRefusal('wechat_refused')).toBe('微信拒绝了此请求（详见服务日志）');
  });

  it('words the account check by WeChat’s errcode', () => {
    const check = (errcode: number | null) =>
      zhCheckAnswer({ ok: false, errcode, message: 'English', checkedAt: '' });
    expect(check(40164)).toContain('IP 白名单');
    expect(check(null)).toContain('网络');
    expect(check(45009)).toBe('微信返回错误码 45009：请对照微信的全局返回码说明。');
  });
});
