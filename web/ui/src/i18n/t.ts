// t(key, params) in the chosen locale: pure TypeScript, no React, so that the model files and
// format.ts may use it (index.ts adds the React hook and tNodes).

import { en } from './en';
import { zhCN } from './zh-CN';
import { getLocale, type Locale } from './locale';

export type Key = keyof typeof en;
// A plural string is two keys, `x_one` and `x_other`; t('x', { count }) picks one by the
// locale's plural rule (Chinese has one form: `other`).
type PluralBase<K> = K extends `${infer B}_one` ? B : never;
export type TKey = Key | PluralBase<Key>;
export type Params = Record<string, string | number>;

export const tables: Record<Locale, Record<Key, string>> = { en, 'zh-CN': zhCN };

// `{name}` is replaced by params.name; an unknown placeholder is left as written.
export function interpolate(text: string, params?: Params): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

export function translate(locale: Locale, key: TKey, params?: Params): string {
  const table = tables[locale];
  let k = key as string;
  if (!(k in en) && params && typeof params.count === 'number') {
    const form = new Intl.PluralRules(locale).select(params.count);
    k = `${key}_${form}` in en ? `${key}_${form}` : `${key}_other`;
  }
  // A count is written with its thousands separated (1,000 ticks) in either language.
  if (params && typeof params.count === 'number') params = { ...params, count: params.count.toLocaleString('en') };
  const text = table[k as Key] ?? en[k as Key] ?? k;
  return interpolate(text, params);
}

export function t(key: TKey, params?: Params): string {
  return translate(getLocale(), key, params);
}

export type T = typeof t;
