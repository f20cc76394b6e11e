// Finding pipelines on the Pipelines page (issue #26 §6): a search on the name (a substring, any
// case), the state (active, paused, failing: its last run failed), a tag and an owner (when the
// server's list carries them: `tags` and `owner` are optional in PipelineSummary). The filter
// lives in the page's address (#/pipelines?q=etl&state=failing), so a reload or a shared link
// shows the same list. test/pipelineFilter.test.ts covers it.

import type { PipelineSummary } from '../api/types';

export type StateFilter = '' | 'active' | 'paused' | 'failing';

export interface PipelineFilter {
  q: string;
  state: StateFilter;
  tag: string;
  owner: string;
}

export const kNoFilter: PipelineFilter = { q: '', state: '', tag: '', owner: '' };

const kStates: StateFilter[] = ['active', 'paused', 'failing'];

// The filter of an address's query; unknown states are ignored.
export function filterFromQuery(query: URLSearchParams): PipelineFilter {
  const state = query.get('state') ?? '';
  return {
    q: query.get('q') ?? '',
    state: (kStates as string[]).includes(state) ? (state as StateFilter) : '',
    tag: query.get('tag') ?? '',
    owner: query.get('owner') ?? '',
  };
}

// The query for a filter, empty fields left out, in a fixed order ("" for no filter).
export function filterToQuery(f: PipelineFilter): string {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  if (f.state) p.set('state', f.state);
  if (f.tag) p.set('tag', f.tag);
  if (f.owner) p.set('owner', f.owner);
  return p.toString();
}

export const isFiltered = (f: PipelineFilter) => !!(f.q.trim() || f.state || f.tag || f.owner);

export function matchesFilter(p: PipelineSummary, f: PipelineFilter): boolean {
  const q = f.q.trim().toLowerCase();
  if (q && !p.name.toLowerCase().includes(q)) return false;
  if (f.state === 'active' && p.paused) return false;
  if (f.state === 'paused' && !p.paused) return false;
  if (f.state === 'failing' && p.lastRun?.state !== 'failed') return false;
  if (f.tag && !(p.tags ?? []).includes(f.tag)) return false;
  if (f.owner && (p.owner ?? '') !== f.owner) return false;
  return true;
}

// The tags and owners of the list, each once, sorted: the choices of the filter's menus (empty
// when the server does not send them).
export function facets(list: PipelineSummary[]): { tags: string[]; owners: string[] } {
  const tags = new Set<string>();
  const owners = new Set<string>();
  for (const p of list) {
    for (const t of p.tags ?? []) if (t) tags.add(t);
    if (p.owner) owners.add(p.owner);
  }
  const sort = (s: Set<string>) => [...s].sort((a, b) => a.localeCompare(b));
  return { tags: sort(tags), owners: sort(owners) };
}
