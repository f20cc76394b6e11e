// Uncertainty of the what-if comparison (issue #26 §10): each side runs several seeds; a metric
// is shown as its mean ± the half-width of a 95 % confidence interval (Student's t), and B
// against A is coloured only when the 95 % interval of the difference of the means (Welch's
// t-interval, unequal variances) excludes zero. test/stats.test.ts checks hand-worked numbers.

// Two-sided 97.5 % quantiles of Student's t for 1..30 degrees of freedom (any statistics table).
const kT975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056,
  2.052, 2.048, 2.045, 2.042,
];
// Beyond 30: at 40, 60, 120 and infinity (the normal's 1.960).
const kTail: [number, number][] = [
  [30, 2.042],
  [40, 2.021],
  [60, 2.0],
  [120, 1.98],
  [Infinity, 1.96],
];

// The 97.5 % quantile of t with `df` degrees of freedom (df > 0, not necessarily whole: Welch's
// df rarely is). Between table entries it is interpolated linearly in 1/df, which is how such
// tables are meant to be read (error below 0.002 for df >= 1). NaN for df <= 0 or NaN.
export function tQuantile975(df: number): number {
  if (!(df > 0)) return NaN;
  if (df <= 1) return kT975[0]; // Welch gives at least 1 with two values a side
  if (df <= 30) {
    const lo = Math.floor(df);
    const hi = Math.ceil(df);
    if (lo === hi) return kT975[lo - 1];
    const w = (1 / lo - 1 / df) / (1 / lo - 1 / hi);
    return kT975[lo - 1] + w * (kT975[hi - 1] - kT975[lo - 1]);
  }
  for (let i = 1; i < kTail.length; ++i) {
    const [d0, t0] = kTail[i - 1];
    const [d1, t1] = kTail[i];
    if (df <= d1) {
      const w = (1 / d0 - 1 / df) / (1 / d0 - (d1 === Infinity ? 0 : 1 / d1));
      return t0 + w * (t1 - t0);
    }
  }
  return 1.96;
}

export const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

// The sample variance (n - 1 in the denominator); NaN below two values.
export function variance(xs: number[]): number {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
}

export interface Estimate {
  n: number;
  mean: number;
  // The half-width of the 95 % interval of the mean; null with one value (no spread known).
  half: number | null;
}

// The mean of the finite values of `xs` and its 95 % interval; null when there are none.
export function estimate(values: (number | null | undefined)[]): Estimate | null {
  const xs = values.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  if (xs.length === 0) return null;
  const m = mean(xs);
  if (xs.length < 2) return { n: 1, mean: m, half: null };
  return { n: xs.length, mean: m, half: tQuantile975(xs.length - 1) * Math.sqrt(variance(xs) / xs.length) };
}

export interface Difference {
  diff: number; // mean(b) - mean(a)
  half: number; // half-width of its 95 % interval
  df: number; // Welch-Satterthwaite degrees of freedom (Infinity when both sides have no spread)
  // The interval excludes zero: B differs from A beyond what the seeds' spread explains.
  significant: boolean;
}

// Welch's 95 % interval of mean(b) - mean(a); null unless both sides have two values or more.
// Two sides without any spread (a deterministic metric) have a zero-width interval: any
// difference is then significant, none is not.
export function welch(aValues: (number | null | undefined)[], bValues: (number | null | undefined)[]): Difference | null {
  const a = aValues.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  const b = bValues.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  if (a.length < 2 || b.length < 2) return null;
  const va = variance(a) / a.length;
  const vb = variance(b) / b.length;
  const diff = mean(b) - mean(a);
  const se2 = va + vb;
  if (se2 === 0) return { diff, half: 0, df: Infinity, significant: diff !== 0 };
  const df = se2 ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tQuantile975(df) * Math.sqrt(se2);
  return { diff, half, df, significant: Math.abs(diff) > half };
}

// The seeds a side runs: `first`, first + 1, ..., first + count - 1.
export function seedsFrom(first: number, count: number): number[] {
  return Array.from({ length: Math.max(1, Math.floor(count)) }, (_, i) => first + i);
}
