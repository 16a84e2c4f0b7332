// One round of a combinatorial semi-bandit policy for R independent runs (book's own kernel).
// Reference: neurips24.cts.kernels.step_reference (NumPy), which this kernel matches bit for bit:
// sums over an action run over the arms in order 0..d-1, and every product / sum uses the _rn
// intrinsics so that NVRTC cannot fuse them into FMAs (NumPy rounds each operation separately).
//
// Shapes (C order, float64 unless noted):
//   N, S   (R, d)  counts and reward sums, updated in place for the arms of the chosen action
//   X      (R, d)  this round's rewards (common random numbers: every policy sees the same X)
//   u1, u2 (R, d)  this round's policy noise: Gamma(alpha), Gamma(beta) draws (B-CTS), N(0,1) (BG-CTS)
//   A      (K, d)  0/1 action matrix;  coef (K,) ESCB coefficients sigma*sqrt(2 f(t,|A|));  gaps (K,)
//   action (R,) int64 out, regret (R,) out
// policy: 0 = B-CTS, 1 = BG-CTS, 2 = ESCB, 3 = CUCB.  c_t: sigma*sqrt(2 g(t)) (BG-CTS), sigma*sqrt(1.5 ln t) (CUCB).
// An action that holds an arm with N = 0 scores +inf (optimistic start); ties go to the lowest action index.
extern "C" __global__ void cts_step(double* __restrict__ N, double* __restrict__ S,
                                    const double* __restrict__ X,
                                    const double* __restrict__ u1, const double* __restrict__ u2,
                                    const double* __restrict__ A, const double* __restrict__ coef,
                                    const double* __restrict__ gaps,
                                    long long* __restrict__ action, double* __restrict__ regret,
                                    const long long R, const long long d, const long long K,
                                    const int policy, const double c_t) {
    const double pos_inf = __longlong_as_double(0x7ff0000000000000LL);
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < R;
         r += (long long)gridDim.x * blockDim.x) {
        const long long row = r * d;
        long long best_k = 0;
        double best = 0.0;
        for (long long k = 0; k < K; ++k) {
            const double* a = A + k * d;
            bool hidden = false;
            double acc = 0.0, acc_inv = 0.0;
            for (long long i = 0; i < d; ++i) {
                if (a[i] == 0.0) continue;
                const double n = N[row + i];
                if (policy == 0) {                                   // B-CTS: Beta via two Gammas
                    const double g1 = u1[row + i];
                    acc = __dadd_rn(acc, __ddiv_rn(g1, __dadd_rn(g1, u2[row + i])));
                    continue;
                }
                if (n <= 0.0) { hidden = true; continue; }
                const double mean = __ddiv_rn(S[row + i], n);
                if (policy == 1) {                                   // BG-CTS
                    const double sd = __ddiv_rn(c_t, __dsqrt_rn(n));
                    acc = __dadd_rn(acc, __dadd_rn(mean, __dmul_rn(sd, u1[row + i])));
                } else if (policy == 2) {                            // ESCB
                    acc = __dadd_rn(acc, mean);
                    acc_inv = __dadd_rn(acc_inv, __ddiv_rn(1.0, n));
                } else {                                             // CUCB
                    acc = __dadd_rn(acc, __dadd_rn(mean, __ddiv_rn(c_t, __dsqrt_rn(n))));
                }
            }
            double score = acc;
            if (policy == 2) score = __dadd_rn(acc, __dmul_rn(coef[k], __dsqrt_rn(acc_inv)));
            if (hidden) score = pos_inf;
            if (k == 0 || score > best) { best = score; best_k = k; }
        }
        const double* a = A + best_k * d;
        for (long long i = 0; i < d; ++i) {
            if (a[i] != 0.0) {
                N[row + i] = __dadd_rn(N[row + i], 1.0);
                S[row + i] = __dadd_rn(S[row + i], X[row + i]);
            }
        }
        action[r] = best_k;
        regret[r] = gaps[best_k];
    }
}
