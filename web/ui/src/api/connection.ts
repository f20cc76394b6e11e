// Is the data on screen current? (issue #26 §8, "the page tells the truth"). Contact with the
// server is lost when a request cannot reach it (a network error, or a proxy's 502/504) or the
// live event stream breaks and a request then fails; it is back at the first answer of any kind
// (a 4xx is an answer). While lost, every page shows a banner with the time of the loss on the
// server's clock (session.ts freezes serverNow() there, so countdowns and running durations
// stop), and `StaleBanner` asks the server again with a growing delay. When contact is back the
// listeners of onRecovered run: the event hub reconnects and sends every page a `reset` (each
// reloads its data), cached resources are read again, the editor validates again.
//
// No imports: client.ts, events.ts and session.ts all report here.

export interface ConnectionState {
  lost: boolean;
  // The browser's clock (ms) when contact was lost; null while in contact.
  lostAtLocal: number | null;
  // What failed first: "The server cannot be reached", "Live updates stopped".
  cause: string | null;
}

export class Connection {
  state: ConnectionState = { lost: false, lostAtLocal: null, cause: null };
  private listeners = new Set<() => void>();
  private recovered = new Set<() => void>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  // A request or the event stream could not reach the server. The first failure fixes the time.
  failed(cause: string) {
    if (this.state.lost) return;
    this.state = { lost: true, lostAtLocal: this.now(), cause };
    this.listeners.forEach((f) => f());
  }

  // An answer came. After a loss, the recovery listeners run once.
  succeeded() {
    if (!this.state.lost) return;
    this.state = { lost: false, lostAtLocal: null, cause: null };
    this.listeners.forEach((f) => f());
    this.recovered.forEach((f) => f());
  }

  subscribe(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  onRecovered(f: () => void): () => void {
    this.recovered.add(f);
    return () => this.recovered.delete(f);
  }
}

export const connection = new Connection();

// The delay before the n-th (0-based) attempt to reach a lost server: 1 s, 2 s, 4 s, 8 s, then
// every 10 s.
export function retryDelayMs(attempt: number): number {
  return Math.min(10000, 1000 * 2 ** Math.max(0, attempt));
}

// The HTTP statuses that mean "not the server answering" (a proxy in front of it).
export const isUnreachableStatus = (status: number) => status === 0 || status === 502 || status === 504;
