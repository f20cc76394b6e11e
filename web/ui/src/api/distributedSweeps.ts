// Distributed sweeps on the server (web/API.md, "Distributed sweeps"): the list, one sweep with
// its result, and cancelling. Submitting and the workers' routes are the CLI's.

import { api, enc } from './client';
import type { DistributedSweep } from './types';
import { newestSweepsFirst, parseDistributedSweep } from '../model/distributedSweeps';

function checked(x: unknown): DistributedSweep {
  const s = parseDistributedSweep(x);
  if (!s) throw new Error('The server answered with something that is not a distributed sweep. Is it an older gantry serve?');
  return s;
}

export const kDistributedSweepsKey = '/distributed-sweeps';

// Every distributed sweep the server keeps, newest first (without results).
export async function fetchDistributedSweeps(): Promise<DistributedSweep[]> {
  const r = await api<{ sweeps?: unknown[] }>(kDistributedSweepsKey);
  return newestSweepsFirst((r?.sweeps ?? []).map(parseDistributedSweep).filter((s): s is DistributedSweep => s !== null));
}

// One sweep; a done one with its result, report and charts.
export async function fetchDistributedSweep(id: string): Promise<DistributedSweep> {
  return checked(await api<unknown>(`${kDistributedSweepsKey}/${enc(id)}`));
}

// Cancels a running sweep; answers the sweep as it is now (cancelled). A done one is a 409.
export async function cancelDistributedSweep(id: string): Promise<DistributedSweep> {
  return checked(await api<unknown>(`${kDistributedSweepsKey}/${enc(id)}`, { method: 'DELETE' }));
}
