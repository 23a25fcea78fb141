import { z } from 'zod';
import { WECHAT_ERRORS, type WechatError } from './wechat-errors';

/**
 * One template of an account's template library, as `template/get_all_private_template` lists it. Its
 * `content` names the fields, one `{{key.DATA}}` each: `课程：{{thing1.DATA}}\n时间：{{time2.DATA}}`.
 */
export interface SimTemplate {
  readonly template_id: string;
  readonly title: string;
  readonly primary_industry: string;
  readonly deputy_industry: string;
  readonly content: string;
  readonly example: string;
}

/** A template message as the follower sees it: the fields its template shows, cleaned as WeChat does. */
export interface ShownTemplate {
  readonly title: string;
  readonly fields: readonly { readonly key: string; readonly label: string; readonly value: string }[];
}

/** The template library of every account, and WeChat's checks of a template send against it. */
export interface TemplateRegistry {
  /** Replaces the account's library. */
  set(appId: string, templates: readonly SimTemplate[]): void;
  /** The account's library: what was set, or the example templates when nothing was. */
  list(appId: string): readonly SimTemplate[];
  /**
   * Checks a send's `template_id` and `data` against the account's library: 40037 for an id it does not
   * hold, 47003 for a field over its limit. Null when WeChat would send it.
   */
  check(
    appId: string,
    templateId: string,
    data: Readonly<Record<string, { value: string }>>,
  ): WechatError | null;
  /** What the follower sees of an accepted send (call after `check`). */
  shown(appId: string, templateId: string, data: Readonly<Record<string, { value: string }>>): ShownTemplate;
}

/**
 * The library of an account nobody registered templates for, so that `make run`, `make demo` and a quick
 * curl have templates to send. Registering templates for the account replaces them.
 */
export const EXAMPLE_TEMPLATES: readonly SimTemplate[] = Object.freeze([
  {
    template_id: 'TPL_COURSE_REMINDER',
    title: '课程提醒',
    primary_industry: '教育',
    deputy_industry: '培训',
    content: '课程名称：{{thing1.DATA}}\n开课时间：{{time2.DATA}}',
    example: '课程名称：春季瑜伽\n开课时间：2026年3月1日 19:00',
  },
  {
    template_id: 'TPL_COUPON',
    title: '优惠券到账提醒',
    primary_industry: '零售',
    deputy_industry: '商超',
    content: '优惠券：{{thing1.DATA}}\n有效期至：{{time2.DATA}}',
    example: '优惠券：满100减20\n有效期至：2026年12月31日',
  },
  {
    template_id: 'TPL_ORDER_SHIPPED',
    title: '订单发货通知',
    primary_industry: '零售',
    deputy_industry: '电商',
    content: '订单号：{{character_string1.DATA}}\n商品：{{thing2.DATA}}',
    example: '订单号：20261127001\n商品：巧克力',
  },
]);

/**
 * How many characters a field may hold, by its keyword type (the key without its number): WeChat's
 * category-template limits (reference/wechat.md §6.1); any other field, old-style `keyword1` included,
 * 20 characters (the rules since 2023-05-04, reference/wechat.md late-2026 update).
 */
const LIMITS: Readonly<Record<string, number>> = {
  thing: 20,
  phrase: 5,
  character_string: 32,
  number: 32,
  letter: 32,
  symbol: 5,
  car_number: 8,
  name: 10,
  phone_number: 17,
};
const DEFAULT_LIMIT = 20;

/** The fields WeChat no longer shows since 2023-05-04, whatever the template says. */
const DROPPED_FIELDS = new Set(['first', 'remark']);

const FIELD = /([^\n{}]*?)[:：]?\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\.DATA\s*\}\}/g;
// Pictographs and the joiners, variation selectors and skin tones that build emoji sequences.
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3/gu;

/** The fields a template's content names, in order, with the label before each. */
export function templateFields(content: string): { key: string; label: string }[] {
  return [...content.matchAll(FIELD)]
    .map((m) => ({ key: m[2], label: m[1].trim() }))
    .filter((f) => !DROPPED_FIELDS.has(f.key));
}

const limitOf = (key: string): number => LIMITS[key.replace(/\d+$/, '')] ?? DEFAULT_LIMIT;

/** A value as WeChat shows it: emoji removed, line breaks made spaces. */
const cleaned = (value: string): string => value.replace(EMOJI, '').replace(/\r\n|\r|\n/g, ' ');

const argumentInvalid = (key: string): WechatError => ({
  errcode: WECHAT_ERRORS.argumentInvalid.errcode,
  errmsg: `${WECHAT_ERRORS.argumentInvalid.errmsg} data.${key}.value invalid`,
});

/** Creates the registry; every account starts with the example templates. */
export function createTemplateRegistry(): TemplateRegistry {
  const libraries = new Map<string, readonly SimTemplate[]>();
  const list = (appId: string): readonly SimTemplate[] => libraries.get(appId) ?? EXAMPLE_TEMPLATES;
  const find = (appId: string, templateId: string) => list(appId).find((t) => t.template_id === templateId);

  return {
    set(appId, templates) {
      libraries.set(appId, Object.freeze(templates.map((t) => Object.freeze({ ...t }))));
    },
    list,
    check(appId, templateId, data) {
      const template = find(appId, templateId);
      if (template === undefined) return WECHAT_ERRORS.invalidTemplateId;
      // Keys the template does not name are ignored, a named key not sent shows empty.
      for (const { key } of templateFields(template.content)) {
        const value = data[key]?.value;
        if (value !== undefined && [...cleaned(value)].length > limitOf(key)) return argumentInvalid(key);
      }
      return null;
    },
    shown(appId, templateId, data) {
      const template = find(appId, templateId);
      return {
        title: template?.title ?? '',
        fields: templateFields(template?.content ?? '').map(({ key, label }) => ({
          key,
          label,
          value: cleaned(data[key]?.value ?? ''),
        })),
      };
    },
  };
}

const templateSchema = z.strictObject({
  template_id: z.string().min(1, 'is required').max(128),
  title: z.string().min(1, 'is required').max(100),
  primary_industry: z.string().max(100).default(''),
  deputy_industry: z.string().max(100).default(''),
  content: z
    .string()
    .max(2000)
    .refine((c) => templateFields(c).length > 0, 'must name at least one field as {{key.DATA}}'),
  example: z.string().max(2000).default(''),
});

const registrationSchema = z.strictObject({
  appId: z.string().min(1, 'is required'),
  templates: z
    .array(templateSchema)
    .max(25, 'an account holds at most 25 templates')
    .refine((ts) => new Set(ts.map((t) => t.template_id)).size === ts.length, 'template_ids must be unique'),
});

/** The body of `POST /__sim/templates`: `{appId, templates: [{template_id, title, content, …}]}`. */
export function parseTemplateRegistration(
  body: unknown,
): { appId: string; templates: SimTemplate[] } | { problems: string[] } {
  const parsed = registrationSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  return {
    problems: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`),
  };
}
