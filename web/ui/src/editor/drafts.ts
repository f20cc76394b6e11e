import type { SavedLayout } from './state';
import type { ImportNote } from '../model/cubeStudio';

// A YAML text handed to the editor by another page (an import), with node positions by task
// name, kept for the session only.

export interface Draft {
  text: string;
  positions?: Record<string, { x: number; y: number }>;
  notes?: ImportNote[];
}

let draft: Draft | null = null;

export function setDraft(d: Draft) {
  draft = d;
}

export function takeDraft(): Draft | null {
  const d = draft;
  draft = null;
  return d;
}

// Positions the user arranged, per pipeline, by task name (browser storage).
const kLayoutKey = (name: string) => `gantry.layout.${name}`;

export function savedLayout(name: string): SavedLayout | undefined {
  try {
    const raw = localStorage.getItem(kLayoutKey(name));
    const v = raw ? JSON.parse(raw) : undefined;
    return v && typeof v === 'object' && v.positions ? (v as SavedLayout) : undefined;
  } catch {
    return undefined;
  }
}

export function saveLayout(name: string, layout: SavedLayout) {
  try {
    localStorage.setItem(kLayoutKey(name), JSON.stringify(layout));
  } catch {
    /* storage full or disabled: positions are a convenience */
  }
}
