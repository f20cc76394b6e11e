// Sweeps and capacity plans on the server (web/API.md, "Sweeps and plans").

import { api, enc } from './client';
import type { Study, StudyFile, StudyKind } from './types';
import { newestFirst, parseStudy, studyNameKey, studyPath } from '../model/studies';

function checked(x: unknown): Study {
  const s = parseStudy(x);
  if (!s) throw new Error('The server answered with something that is not a sweep or plan. Is it an older gantry serve?');
  return s;
}

export async function fetchCatalog(kind: StudyKind): Promise<StudyFile[]> {
  const key = kind === 'Sweep' ? 'sweeps' : 'plans';
  const r = await api<Record<string, StudyFile[]>>(`${studyPath(kind)}/catalog`);
  return r?.[key] ?? [];
}

export async function startStudy(kind: StudyKind, name: string): Promise<Study> {
  return checked(await api<unknown>(studyPath(kind), { method: 'POST', body: { [studyNameKey(kind)]: name } }));
}

export async function fetchStudy(kind: StudyKind, id: string): Promise<Study> {
  return checked(await api<unknown>(`${studyPath(kind)}/${enc(id)}`));
}

export async function cancelStudy(kind: StudyKind, id: string): Promise<void> {
  await api<unknown>(`${studyPath(kind)}/${enc(id)}`, { method: 'DELETE' });
}

// Every sweep and plan the server keeps, newest first (without results).
export async function fetchStudies(): Promise<Study[]> {
  const [sweeps, plans] = await Promise.all([api<{ sweeps: unknown[] }>('/sweeps'), api<{ plans: unknown[] }>('/plans')]);
  return newestFirst([...(sweeps?.sweeps ?? []), ...(plans?.plans ?? [])].map(parseStudy).filter((s): s is Study => s !== null));
}
