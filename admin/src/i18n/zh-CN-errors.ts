import type { AccountCheck, ErrorDetail, ErrorRule } from '../types.js';

/**
 * The API's refusals in Chinese: a field's problem from its `rule` (docs/api.md "Errors"), a refusal from
 * its `code`. The API words both in English for programmers; a rule or code this page does not know yet
 * says so in Chinese, with the code, rather than show English on a Chinese page.
 */

/** The interaction that opens a contact window, as the window rules name it. */
const OPENED_BY: Record<string, string> = {
  message: '粉丝发消息',
  subscribe: '关注',
  scan: '扫码',
  click: '点击菜单',
};

/** WeChat's types of value, as a form asks for them. */
const TYPES: Record<string, string> = {
  string: '文字',
  number: '数字',
  int: '整数',
  boolean: '是或否',
  object: '一组字段',
  array: '列表',
};

/** 90_000 → "1分钟30秒". */
function span(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [size, unit] of [
    [86_400_000, '天'],
    [3_600_000, '小时'],
    [60_000, '分钟'],
    [1000, '秒'],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join('') || `${ms}毫秒`;
}

const num = (v: unknown): string => Number(v).toLocaleString('zh-CN');
const own = <T>(map: Record<string, T>, key: unknown): T | undefined =>
  typeof key === 'string' && Object.hasOwn(map, key) ? map[key] : undefined;

/** "关注后1分钟内最多可发 3 条", as the editor's window chart says it. */
function window(rule: ErrorRule): string {
  const opened = own(OPENED_BY, rule.interaction) ?? '互动';
  return `${opened}后${span(Number(rule.windowMs))}内最多可发 ${num(rule.count)} 条`;
}

/** How much of a thing a limit counts: characters, items, bytes, or the number itself. */
function amount(rule: ErrorRule, bound: unknown): string {
  if (rule.origin === 'string') return `${num(bound)} 个字`;
  if (rule.origin === 'array' || rule.origin === 'set' || rule.origin === 'object') return `${num(bound)} 项`;
  if (rule.origin === 'bytes') return `${num(bound)} 字节（UTF-8）`;
  return num(bound);
}

/** A field named `…Ms` holds milliseconds (docs/api.md): its limits are durations, as its form shows them. */
const isDuration = (path: string): boolean => /Ms$/.test(path);

const RULES: Record<string, (rule: ErrorRule, path: string) => string> = {
  required: () => '必填',
  invalid: () => '此项不符合要求',
  type: (r) => `应为${own(TYPES, r.expected) ?? '正确的类型'}`,
  too_small: (r, path) => {
    if (isDuration(path)) return `不能短于 ${span(Number(r.minimum))}`;
    const list = r.origin !== 'string' && r.origin !== 'number' && r.origin !== 'int';
    if (Number(r.minimum) === 1 && (r.origin === 'string' || list)) return '不能为空';
    if (r.origin === 'string' || list) return `至少 ${amount(r, r.minimum)}`;
    return r.inclusive === false ? `应大于 ${num(r.minimum)}` : `不能小于 ${num(r.minimum)}`;
  },
  too_big: (r, path) => {
    if (isDuration(path)) return `不能长于 ${span(Number(r.maximum))}`;
    if (r.origin === 'number' || r.origin === 'int')
      return r.inclusive === false ? `应小于 ${num(r.maximum)}` : `不能大于 ${num(r.maximum)}`;
    return `最多 ${amount(r, r.maximum)}`;
  },
  one_of: (r) => `应为以下之一：${(Array.isArray(r.values) ? r.values : []).map(String).join('、')}`,
  format: (r) =>
    r.format === 'url'
      ? '应为网址（http:// 或 https:// 开头）'
      : r.format === 'email'
        ? '应为电子邮箱地址'
        : '格式不正确',
  multiple_of: (r) => `应为 ${num(r.divisor)} 的整数倍`,
  unknown_field: () => '不是可识别的字段',
  unknown_cursor: () => '不是本服务给出的翻页位置：请使用上一页答复中给出的位置',
  invalid_text: () => '含有无法保存的字符（如空字符或不成对的代理字符）',
  forbidden_key: () => '是保留的字段名，不能使用',
  needs_aes_key: () => '兼容模式和安全模式需要消息加解密密钥(EncodingAESKey)',
  same_time: () => '开始和结束是同一时间：请给出一个时段（结束早于开始即跨越午夜）',
  route_word: () => 'AppID 不能是接口路径用词',
  time_zone: () => '应为 IANA 时区名称，例如 Asia/Shanghai',
  reserved_name: () => '这是序列自身步骤的名称，不能用作路径名',
  unknown_account: () => '本服务没有这个公众号',
  no_steps: () => '序列至少需要一个步骤（或一个等待）',
  repeats: (r) => `与第 ${num(Number(r.index) + 1)} 项重复`,
  goal_is_exit: (r) =>
    `与第 ${num(Number(r.index) + 1)} 个退出条件相同：要在达成目标时结束旅程，请勾选“达成目标即结束旅程”`,
  variable_without_default: (r) =>
    `变量 {{${String(r.name)}}} 没有默认值，而该触发方式不提供变量：请写成 {{${String(r.name)}|默认值}}，或改为由接口加入`,
  variable_missing: (r) => `第 ${num(r.step)} 步用到的 {{${String(r.name)}}} 没有默认值：请给出它的值`,
  variable_in_origin: () => '链接的域名部分不能含变量：请写出完整域名，变量放在第一个“/”之后',
  missing_permission: (r) =>
    r.channel === 'template'
      ? '该公众号未授权模板消息（权限集 7）：请管理员重新授权'
      : '该公众号未授权客服消息（权限集 1）：请管理员重新授权',
  window_late: (r) => `超出客服消息窗口（${window(r)}）：请提前发送，或添加模板消息作为备用`,
  window_full: (r) =>
    `将是窗口内第 ${num(r.position)} 条消息，而${window(r)}：请添加模板消息作为备用，或减少步骤`,
  last_chance_no_window: () =>
    '“窗口关闭前”的步骤需要一个窗口：接口调用、接口事件或变量（触发方式，或本路径所等待的条件）都不会打开客服消息窗口',
  last_chance_no_policy: () =>
    '“窗口关闭前”的步骤需要窗口规则，而该公众号设置为不限制窗口：请设置窗口规则，或按时间发送',
  last_chance_too_early: (r) =>
    `${window(r)}，窗口关闭前 ${span(Number(r.beforeCloseMs))} 早于窗口打开的时刻`,
  last_chance_offset: () => '“窗口关闭前”的步骤按窗口结束计时：发送时间请留空或为 0',
  last_chance_before_wait: () =>
    '“窗口关闭前”的步骤是路径的最后一步，而此路径之后还有等待：请把它放到等待所通向的路径上',
  last_chance_order: () => '步骤须按先后排列：这个“窗口关闭前”的步骤比上一步更早发出',
  last_chance_last: () => '“窗口关闭前”的步骤须排在本路径最后：请把这一步移到它们前面',
  step_order: () => '步骤须按先后排列：这一步早于上一步',
  wait_before_last_step: (r) =>
    `等待开始于本路径最后一步（${span(Number(r.lastMs))}）之前：等待应在路径的步骤之后`,
  empty_path: () => '这条路径既没有步骤也没有等待：请删除它',
  message_or_variants: () => '一个步骤要么有消息，要么有 A/B 版本，不能两者都有',
  unknown_path: (r) => `没有名为 ${String(r.name)} 的路径`,
  path_loop: (r) => `又回到了路径 ${String(r.name)}：旅程是一棵树，不能循环`,
  path_taken: (r) => `路径 ${String(r.name)} 已由另一个等待通向：每条路径只有一个入口`,
  path_unreachable: () => '没有任何等待通向这条路径',
  too_deep: (r) => `等待最多连续 ${num(r.maximum)} 层`,
  quiet_hours_push: (r) =>
    `${r.source === 'sequence' ? '本序列' : '公众号默认'}的静默时段 ${String(r.start)}–${String(r.end)}` +
    `（${r.timeZone === 'Asia/Shanghai' ? '北京时间' : String(r.timeZone)}）最多可把这一步推迟 ${span(Number(r.spanMs))}，` +
    `超出其客服消息窗口（${window(r)}）；在静默时段内到期的粉丝将收不到（跳过）。请添加备用消息，或为本序列关闭静默时段。`,
  template_dropped_field: (r) => `微信已不再显示“${String(r.key)}”字段（2023-05-04 起）：粉丝看不到它`,
  template_colour: () => '微信已忽略自定义颜色（2023-05-04 起）：该字段按默认颜色显示',
  template_emoji: () => '微信会去掉模板消息中的表情符号（2023-05-04 起）',
  template_too_long: (r) =>
    `${num(r.chars)} 个字：模板字段最多 20 个字（2023-05-04 起），超出时微信拒绝发送（47003）`,
  template_line_break: () => '微信把模板字段显示为一行（2023-05-04 起）：换行会丢失',
  templates_unavailable: () => '暂时无法从微信读取该公众号的模板列表，模板 ID 未能核对；仍可保存',
  unknown_template: (r) =>
    `该公众号的模板库中没有模板 ${String(r.templateId)}：微信会返回 40037，该步骤发送失败。已有模板：` +
    `${(Array.isArray(r.known) && r.known.length > 0 ? r.known : ['无']).map(String).join('、')}`,
  too_many_steps: (r) => `共 ${num(r.total)} 个步骤：一个旅程最多 ${num(r.maximum)} 个`,
};

/** A field's problem in Chinese. */
export function zhDetail(detail: ErrorDetail): string {
  const word = detail.rule ? own(RULES, detail.rule.kind) : undefined;
  if (word && detail.rule) return word(detail.rule, detail.path);
  return detail.rule ? `此项无效（${detail.rule.kind}）` : '此项无效';
}

/** Refusals of a whole request, by code. */
const CODES: Record<string, string> = {
  validation_error: '提交的内容有误',
  invalid_text: '提交的内容含有无法保存的字符',
  forbidden_key: '提交的内容含有保留的字段名',
  malformed_json: '提交的内容不是有效的 JSON',
  body_too_large: '提交的内容过大',
  not_found: '未找到：它可能已被删除',
  unauthorized: '登录已失效，请重新登录',
  forbidden: '接口密钥不能做这件事：它只能调用为它勾选的操作',
  too_many_requests: '请求过于频繁，请稍后再试',
  overloaded: '服务繁忙，请稍后再试',
  database_unavailable: '数据库暂时不可用，请稍后再试',
  broker_unavailable: '消息队列暂时不可用，请稍后再试',
  internal: '服务内部出错，请稍后再试；详情见服务日志',
  account_exists: '已有相同 AppID 的公众号',
  account_deleted: '该公众号已删除',
  account_unauthorized: '该公众号已取消授权',
  unknown_account: '本服务没有这个公众号',
  sequence_status: '序列当前的状态不允许这样操作',
  sequence_archived: '该序列已归档，不能再修改',
  sequence_not_archived: '只有已归档的序列才能这样操作',
  sequence_not_active: '该序列未启用',
  sequence_has_history: '该序列已有发送记录，不能删除（可以归档）',
  sequence_account_fixed: '序列所属的公众号不能更改',
  message_not_cancellable: '该消息正在发送或已完成，无法取消',
  message_not_reschedulable: '该消息正在发送或已完成，无法改期',
  idempotency_key_reused: '该幂等键已用于另一个不同的请求',
  encryption_key_missing: '服务未配置加密密钥，无法保存密钥类信息',
  wechat_refused: '微信拒绝了此请求（详见服务日志）',
  wechat_unavailable: '暂时连不上微信，请稍后再试',
  token_error: '无法从微信获取 access_token：请检查 AppSecret 和 IP 白名单',
};

/** A refusal in Chinese; WeChat's (`wechat_refused`) by its errcode when the answer carries one. */
export function zhRefusal(code: string, errcode?: number): string {
  if (code === 'wechat_refused' && errcode !== undefined && errcode !== 0) {
    return own(CHECK_ANSWERS, String(errcode)) ?? `微信拒绝了此请求（错误码 ${errcode}）`;
  }
  return own(CODES, code) ?? `服务未接受此请求（${code}）`;
}

/** What WeChat's errcodes to the account check mean (reference/wechat.md §3, §4), and what to do. */
const CHECK_ANSWERS: Record<string, string> = {
  '0': '微信已签发 access_token：AppSecret 和本服务器的 IP 地址均已通过。',
  '40001': '微信拒绝了 AppSecret（40001）：请从公众平台（设置与开发 → 基本配置）重新复制并在此保存。',
  '40125': '微信拒绝了 AppSecret（40125，无效的 AppSecret）：请从公众平台重新复制并在此保存。',
  '40164': '微信拒绝了本服务器的 IP 地址（40164）：请在公众平台的 IP 白名单中添加它。',
  '61004': '微信拒绝了本服务器的 IP 地址（61004）：请在公众平台的 IP 白名单中添加它。',
  '40013': '微信不认识这个 AppID（40013）：请在公众平台核对 AppID。',
  '40243': '微信提示 AppSecret 已被冻结（40243）：请在公众平台解冻或重置。',
  '-1': '微信系统繁忙（-1）：请稍后再检查一次。',
};

/** The account check's answer in Chinese. */
export function zhCheckAnswer(check: AccountCheck): string {
  if (typeof check.errcode !== 'number') return '没有收到微信可用的答复：请检查本服务器的网络。';
  return (
    own(CHECK_ANSWERS, String(check.errcode)) ??
    `微信返回错误码 ${check.errcode}：请对照微信的全局返回码说明。`
  );
}
