// The app's strings: t(key, params) in the chosen locale (locale.ts), useT() for components.
// English is the reference (en.ts); zh-CN.ts must have every key (a missing one does not
// compile). Server-sent text (reasons, validation messages, logs) is never passed through here.

import { createElement, Fragment, useSyncExternalStore, type ReactNode } from 'react';
import { getLocale, setLocale, subscribeLocale, type Locale } from './locale';
import { t, type Params, type T, type TKey } from './t';

export { chooseLocale, getLocale, setLocale, intlLocale, type Locale } from './locale';
export { interpolate, t, tables, translate, type Key, type Params, type T, type TKey } from './t';

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
