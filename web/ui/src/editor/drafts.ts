// A YAML text handed to the editor by another page (an import), with node positions by task
// name, kept for the session only.

export interface Draft {
  text: string;
  positions?: Record<string, { x: number; y: number }>;
  notes?: { level: 'info' | 'warning'; task?: string; message: string }[];
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

export function savedPositions(name: string): Record<string, { x: number; y: number }> | undefined {
  try {
    const raw = localStorage.getItem(kLayoutKey(name));
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

export function savePositions(name: string, positions: Record<string, { x: number; y: number }>) {
  try {
    localStorage.setItem(kLayoutKey(name), JSON.stringify(positions));
  } catch {
    /* storage full or disabled: positions are a convenience */
  }
}
