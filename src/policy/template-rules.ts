/**
 * WeChat's rules for template messages since 2023-05-04 (reference/wechat.md, late-2026 update): it drops
 * `first`, `remark`, custom colours and emoji; each remaining field holds at most 20 characters, without
 * line breaks. Pure TypeScript with no imports: the save-time warnings and the admin page's phone preview
 * (in the browser, as an ES module) both use this file, so the preview shows what the warnings say.
 */

/** The longest value a template field may hold, in characters. */
export const TEMPLATE_FIELD_MAX_CHARS = 20;

/** The fields WeChat no longer shows. */
export const DROPPED_TEMPLATE_FIELDS: readonly string[] = ['first', 'remark'];

/** A template message's `data`, as the API takes it. */
export type TemplateData = Readonly<
  Record<string, { readonly value: string; readonly color?: string } | undefined>
>;

/** One field as the follower sees it. */
export interface ShownTemplateField {
  readonly key: string;
  /** The value without its emoji. */
  readonly value: string;
  /** Longer than TEMPLATE_FIELD_MAX_CHARS once the emoji are gone: WeChat refuses the message (47003). */
  readonly tooLong: boolean;
  /** Holds a line break, which WeChat does not show. */
  readonly lineBreak: boolean;
}

/** What WeChat does to a template message that breaks a rule: one per field and rule broken. */
export type TemplateRuleIssue =
  | { readonly kind: 'dropped_field'; readonly key: string }
  | { readonly kind: 'colour'; readonly key: string }
  | { readonly kind: 'emoji'; readonly key: string }
  | { readonly kind: 'too_long'; readonly key: string; readonly chars: number }
  | { readonly kind: 'line_break'; readonly key: string };

// Pictographs and the joiners, variation selectors and skin tones that build emoji sequences.
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3/gu;
const LINE_BREAK = /[\r\n\u2028\u2029]/;

/** Characters as WeChat counts them: code points, so 课 and 😀 are one each. */
const charCount = (value: string): number => [...value].length;

/** The fields WeChat shows, in the message's order, each as the follower sees it. */
export function shownTemplateFields(data: TemplateData): ShownTemplateField[] {
  return Object.entries(data)
    .filter(([key, field]) => field !== undefined && !DROPPED_TEMPLATE_FIELDS.includes(key))
    .map(([key, field]) => {
      const value = field!.value.replace(EMOJI, '');
      return {
        key,
        value,
        tooLong: charCount(value) > TEMPLATE_FIELD_MAX_CHARS,
        lineBreak: LINE_BREAK.test(value),
      };
    });
}

/** Every rule the message's data breaks, field by field in its order. */
export function templateRuleIssues(data: TemplateData): TemplateRuleIssue[] {
  const shown = new Map(shownTemplateFields(data).map((f) => [f.key, f]));
  return Object.entries(data).flatMap(([key, field]): TemplateRuleIssue[] => {
    if (field === undefined) return [];
    if (DROPPED_TEMPLATE_FIELDS.includes(key)) return [{ kind: 'dropped_field', key }];
    const f = shown.get(key)!;
    const issues: TemplateRuleIssue[] = [];
    if (field.color !== undefined) issues.push({ kind: 'colour', key });
    if (f.value !== field.value) issues.push({ kind: 'emoji', key });
    if (f.tooLong) issues.push({ kind: 'too_long', key, chars: charCount(f.value) });
    if (f.lineBreak) issues.push({ kind: 'line_break', key });
    return issues;
  });
}
