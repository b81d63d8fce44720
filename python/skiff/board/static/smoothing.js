/**
 * Scalar smoothing as TensorBoard does it: an exponential moving average whose early
 * values are debiased (divided by 1 - weight^n), so the curve starts at the data
 * instead of at zero.
 */

/** The smoothed copy of `values` for `weight` in [0, 1): non-finite values pass through
 *  unchanged and do not enter the average; a constant series stays as it is. */
export function smooth(values, weight) {
  if (!(weight > 0) || values.length === 0) return values.slice();
  const w = Math.min(weight, 0.999);
  const constant = values.every((v) => v === values[0]);
  if (constant) return values.slice();
  const out = new Array(values.length);
  let average = 0;
  let count = 0;
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    if (!Number.isFinite(value)) {
      out[i] = value;
      continue;
    }
    average = average * w + (1 - w) * value;
    count += 1;
    out[i] = average / (1 - w ** count);
  }
  return out;
}
