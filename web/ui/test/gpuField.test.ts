import { describe, expect, it } from 'vitest';
import { gpuShare, wholeGpuCount } from '../src/model/spec';

describe('wholeGpuCount (the "Whole GPUs" field while typed in)', () => {
  it('takes whole counts from 1 to 64', () => {
    expect(wholeGpuCount('2')).toBe('2');
    expect(wholeGpuCount(' 08 ')).toBe('8');
    expect(wholeGpuCount('64')).toBe('64');
  });
  it('does not take an unfinished or out-of-range text: the task keeps its GPUs', () => {
    // Backspace on "2" leaves "": the GPU must not be removed from the task.
    for (const t of ['', ' ', '0', '65', '1.5', 'x', '-1']) expect(wholeGpuCount(t)).toBeNull();
  });
});

describe('gpuShare', () => {
  it('takes a share above 0 and below 1, at most three decimals', () => {
    expect(gpuShare('0.5')).toBe('0.5');
    expect(gpuShare('.25')).toBe('0.25');
    expect(gpuShare('0.125')).toBe('0.125');
    for (const t of ['', '0', '0.', '0.0', '1', '0.1234', '1.5']) expect(gpuShare(t)).toBeNull();
  });
});
