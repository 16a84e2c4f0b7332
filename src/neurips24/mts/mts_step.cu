// One step of the fractional MTS algorithm on a weighted star for B independent instances (book's own kernel).
// Reference: neurips24.mts.kernels.star_step_reference, i.e. neurips24.mts.fractional.mirror_descent_step
// followed by the step's fractional cost W1(q, p) + <c, p> (neurips24.mts.metric.wasserstein1 on a star).
// One thread per instance: it finds the multiplier lambda of sum(p) = 1 by Newton's method started at
// lambda = -max c (the iterates increase monotonically to the root), then writes
//   p_i = max(0, (q_i + delta) exp(-eta (c_i + lambda) / w_i) - delta) / sum_j(...)
// and the step cost sum_i w_i |p_i - q_i| + sum_i c_i p_i (on a star, mass moves leaf -> centre -> leaf).
// Each thread stops Newton on its own |sum p - 1| < tol (NumPy stops when the whole batch has), so the two
// agree to rounding, not bit for bit.
//
// Shapes (C order, float64): q, c, p (B, n); leaf (n,) star leaf distances w_i > 0; cost (B,) out.
extern "C" __global__ void mts_step(const double* __restrict__ q, const double* __restrict__ c,
                                    const double* __restrict__ leaf,
                                    double* __restrict__ p, double* __restrict__ cost,
                                    const long long B, const long long n,
                                    const double eta, const double delta,
                                    const double tol, const int max_iter) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < B;
         b += (long long)gridDim.x * blockDim.x) {
        const double* qb = q + b * n;
        const double* cb = c + b * n;
        double* pb = p + b * n;
        double lam = -cb[0];
        for (long long i = 1; i < n; ++i) lam = fmin(lam, -cb[i]);       // -max c
        for (int it = 0; it < max_iter; ++it) {
            double f = -1.0, slope = 0.0;
            for (long long i = 0; i < n; ++i) {
                const double rate = eta / leaf[i];
                const double u = (qb[i] + delta) * exp(-rate * (cb[i] + lam));
                if (u > delta) { f += u - delta; slope -= rate * u; }
            }
            if (fabs(f) < tol) break;
            lam -= f / slope;                                           // Newton step
        }
        double total = 0.0;
        for (long long i = 0; i < n; ++i) {
            const double v = fmax((qb[i] + delta) * exp(-eta / leaf[i] * (cb[i] + lam)) - delta, 0.0);
            pb[i] = v;
            total += v;
        }
        double step_cost = 0.0;
        for (long long i = 0; i < n; ++i) {
            const double v = pb[i] / total;
            pb[i] = v;
            step_cost += leaf[i] * fabs(v - qb[i]) + cb[i] * v;
        }
        cost[b] = step_cost;
    }
}
