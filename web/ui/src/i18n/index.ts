// The app's strings: t(key, params) in the chosen locale (locale.ts), useT() for components.
// English is the reference (en.ts); zh-CN.ts must have every key (a missing one does not
// compile). Server-sent text (reasons, validation messages, logs) is never passed through here.

import { createElement, Fragment, useSyncExternalStore, type ReactNode } from 'react';
import { en } from './en';
import { zhCN } from './zh-CN';
import { getLocale, setLocale, subscribeLocale, type Locale } from './locale';

export { chooseLocale, getLocale, setLocale, intlLocale, type Locale } from './locale';

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

// The same with elements in place of some parameters (a <code>, a link): the text around them
// is translated as one sentence, so each language puts them where its word order wants them.
export function tNodes(key: TKey, nodes: Record<string, ReactNode>, params?: Params): ReactNode[] {
  const text = t(key, params);
  return text.split(/\{(\w+)\}/).map((part, i) => (i % 2 === 1 ? createElement(Fragment, { key: i }, part in nodes ? nodes[part] : `{${part}}`) : part));
}

// A component that calls useT() draws again when the navigation's switch changes the locale.
export function useT(): T {
  useSyncExternalStore(subscribeLocale, getLocale, getLocale);
  return t;
}

export function useLocale(): [Locale, (l: Locale) => void] {
  const locale = useSyncExternalStore(subscribeLocale, getLocale, getLocale);
  return [locale, setLocale];
}
