// Percentiles and a one-line figure format shared by every benchmark.
export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index] ?? Number.NaN;
}

export function summarizeMs(samples: readonly number[]): {
  p50: number;
  p99: number;
  min: number;
  max: number;
  n: number;
} {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    n: sorted.length,
  };
}

export function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(value < 10 ? 2 : 0)} ms`;
}

export function verdict(measured: number, target: number): string {
  return measured <= target ? `meets target <= ${ms(target)}` : `MISSES target <= ${ms(target)}`;
}
