// Which language the pages speak: English or Simplified Chinese (issue #26 §9: cube-studio's
// users read Chinese). The browser's languages choose, in their order (the first one the app
// speaks wins); the switch in the navigation overrides that and is kept in local storage.
// Kept outside React so that format.ts formats dates in the same locale as the pages.

export type Locale = 'en' | 'zh-CN';
export const kLocales: readonly Locale[] = ['en', 'zh-CN'];
const kStorageKey = 'gantry.locale';

// The first of the browser's languages that the app speaks: zh, zh-CN, zh-Hans(-*), zh-SG are
// Simplified Chinese; en-* is English; Traditional Chinese (zh-TW, zh-HK, zh-Hant) and any other
// language are passed over. With none, English. A stored choice ('en' or 'zh-CN') wins.
export function chooseLocale(languages: readonly string[] | undefined, stored: string | null): Locale {
  if (stored === 'en' || stored === 'zh-CN') return stored;
  for (const raw of languages ?? []) {
    const lang = raw.toLowerCase();
    if (lang === 'en' || lang.startsWith('en-')) return 'en';
    if (lang === 'zh' || lang === 'zh-cn' || lang === 'zh-sg' || lang === 'zh-hans' || lang.startsWith('zh-hans-')) return 'zh-CN';
  }
  return 'en';
}

function readStored(): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(kStorageKey);
  } catch {
    return null; // storage refused (a private window's policy): the browser's languages decide
  }
}

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);
}

let current: Locale = chooseLocale(browserLanguages(), readStored());
const listeners = new Set<() => void>();

function applyToDocument() {
  if (typeof document !== 'undefined') document.documentElement.lang = current;
}
applyToDocument();

export function getLocale(): Locale {
  return current;
}

// The navigation's switch: remembered in local storage, <html lang> follows, every page redraws.
export function setLocale(locale: Locale) {
  try {
    localStorage.setItem(kStorageKey, locale);
  } catch {
    /* not remembered; still switched for this page */
  }
  if (locale === current) return;
  current = locale;
  applyToDocument();
  for (const f of listeners) f();
}

export function subscribeLocale(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

// The Intl locale for dates and numbers: en-GB (day before month, 24-hour clock) as before.
export function intlLocale(locale: Locale = current): string {
  return locale === 'zh-CN' ? 'zh-CN' : 'en-GB';
}
