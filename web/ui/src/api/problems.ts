// What the server knows is wrong with itself (GET /api/v1/problems, the JSON of /readyz): a
// stored pipeline it could not load at start, a runs database it cannot write. The app shows
// them on every page until they are cleared (ServerProblems).

export interface ServerProblems {
  ready: boolean;
  problems: string[];
}

export interface ProblemSummary {
  title: string;
  items: string[];
}

// The banner's words for a list of problems, or null when there are none. A database problem
// comes first: while it lasts the server refuses every change.
export function summarizeProblems(p: ServerProblems | null): ProblemSummary | null {
  if (!p || p.problems.length === 0) return null;
  const database = p.problems.filter((x) => x.startsWith('database:'));
  const documents = p.problems.filter((x) => !x.startsWith('database:'));
  const items = [...database.map((x) => x.slice('database:'.length).trim()), ...documents];
  let title: string;
  if (database.length > 0) {
    title = 'The runs database cannot be written: changes are refused until it can, and the scheduler waits.';
  } else if (documents.length === 1) {
    title = 'A stored pipeline could not be loaded: it does not run until a good version is applied or it is deleted.';
  } else {
    title = `${documents.length} stored pipelines could not be loaded: they do not run until good versions are applied or they are deleted.`;
  }
  return { title, items };
}
