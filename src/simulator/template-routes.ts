import type { TemplateRegistry } from './templates';
import type { TokenRegistry } from './tokens';
import type { WechatError } from './wechat-errors';

/** WeChat's template library API (reference/wechat.md §6.1): `GET …?access_token=`. */
export const TEMPLATE_LIST_PATH = '/cgi-bin/template/get_all_private_template';

/** The answer of `template/get_all_private_template`: the library of the token's account, or the token's error. */
export function templateList(
  tokens: Pick<TokenRegistry, 'check'>,
  templates: Pick<TemplateRegistry, 'list'>,
  query: URLSearchParams,
): { template_list: unknown[] } | WechatError {
  const owner = tokens.check(query.get('access_token'));
  if ('errcode' in owner) return owner;
  return { template_list: templates.list(owner.appId).map((t) => ({ ...t })) };
}
