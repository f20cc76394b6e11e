import { describe, expect, it } from 'vitest';
import { estimate, seedsFrom, tQuantile975, variance, welch } from '../src/model/stats';

describe('tQuantile975', () => {
  it('reads the table at whole degrees of freedom', () => {
    expect(tQuantile975(4)).toBe(2.776);
    expect(tQuantile975(8)).toBe(2.306);
    expect(tQuantile975(120)).toBeCloseTo(1.98, 6);
    expect(tQuantile975(1e9)).toBeCloseTo(1.96, 3);
  });
  it('interpolates in 1/df between entries', () => {
    // df 8.5: w = (1/8 - 1/8.5) / (1/8 - 1/9) = 0.0073529 / 0.0138889 = 0.529412;
    // t = 2.306 + 0.529412 * (2.262 - 2.306) = 2.306 - 0.023294 = 2.282706
    expect(tQuantile975(8.5)).toBeCloseTo(2.282706, 5);
    // df 50: w = (1/40 - 1/50) / (1/40 - 1/60) = 0.005 / 0.0083333 = 0.6; t = 2.021 - 0.6 * 0.021 = 2.0084
    expect(tQuantile975(50)).toBeCloseTo(2.0084, 6);
  });
  it('is NaN without degrees of freedom', () => {
    expect(tQuantile975(0)).toBeNaN();
  });
});

describe('estimate', () => {
  it('gives the mean and the 95% half-width', () => {
    // 1..5: mean 3; variance (4 + 1 + 0 + 1 + 4) / 4 = 2.5; standard error sqrt(2.5 / 5) = 0.707107;
    // half-width t(4) * se = 2.776 * 0.707107 = 1.962929
    expect(variance([1, 2, 3, 4, 5])).toBe(2.5);
    const e = estimate([1, 2, 3, 4, 5])!;
    expect(e.n).toBe(5);
    expect(e.mean).toBe(3);
    expect(e.half).toBeCloseTo(1.962929, 5);
  });
  it('leaves out missing values and has no interval for one value', () => {
    expect(estimate([7, null, undefined, NaN])).toEqual({ n: 1, mean: 7, half: null });
    expect(estimate([])).toBeNull();
  });
});

describe('welch', () => {
  it('does not call a difference inside the spread significant', () => {
    // A = 1..5, B = 3..7: difference 2; variances of the means 2.5/5 = 0.5 each, se = 1;
    // df = 1 / (0.5^2/4 + 0.5^2/4) = 8; half-width 2.306 * 1 = 2.306 > 2: interval [-0.306, 4.306]
    const d = welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7])!;
    expect(d.diff).toBe(2);
    expect(d.df).toBeCloseTo(8, 10);
    expect(d.half).toBeCloseTo(2.306, 10);
    expect(d.significant).toBe(false);
  });
  it('calls it significant when the interval excludes zero', () => {
    // B = 4..8: difference 3 > 2.306: interval [0.694, 5.306]
    expect(welch([1, 2, 3, 4, 5], [4, 5, 6, 7, 8])!.significant).toBe(true);
    // and the other way (B lower): -3, interval [-5.306, -0.694]
    expect(welch([4, 5, 6, 7, 8], [1, 2, 3, 4, 5])!.significant).toBe(true);
  });
  it('uses unequal variances and sizes', () => {
    // A = 2, 4, 6: mean 4, variance 4, of the mean 4/3. B = 10..14: mean 12, variance 2.5, of the mean 0.5.
    // se^2 = 1.833333; df = 1.833333^2 / ((4/3)^2 / 2 + 0.5^2 / 4) = 3.361111 / 0.951389 = 3.532847;
    // t: w = (1/3 - 1/3.532847) / (1/3 - 1/4) = 0.603306, t = 3.182 - 0.603306 * 0.406 = 2.937058;
    // half-width 2.937058 * sqrt(1.833333) = 2.937058 * 1.354006 = 3.976795
    const d = welch([2, 4, 6], [10, 11, 12, 13, 14])!;
    expect(d.diff).toBe(8);
    expect(d.df).toBeCloseTo(3.532847, 5);
    expect(d.half).toBeCloseTo(3.976795, 4);
    expect(d.significant).toBe(true);
  });
  it('needs two values a side; no spread at all makes any difference certain', () => {
    expect(welch([1], [2, 3])).toBeNull();
    expect(welch([5, 5, 5], [5, 5])).toEqual({ diff: 0, half: 0, df: Infinity, significant: false });
    expect(welch([5, 5, 5], [6, 6])!.significant).toBe(true);
  });
});

describe('seedsFrom', () => {
  it('counts up from the first seed', () => {
    expect(seedsFrom(42, 5)).toEqual([42, 43, 44, 45, 46]);
    expect(seedsFrom(7, 0)).toEqual([7]);
  });
});
