// Batched ridge regression and held-out R^2 for every feature of every block at once (book's own kernels).
// Reference: neurips24.complexity.kernels.ridge_r2_numpy (numpy.linalg.solve); kernels.py checks the two
// against each other and transcribes each launch in NumPy for the CPU tests.
//
// The caller (CuPy) forms, for L problems (one per block, widths zero-padded to p):
//   A = Ftr^T Ftr + lam n_tr I   (L, p, p)    B = Ftr^T Ztr   (L, p, k)    by batched GEMM,
// then runs
//   cholesky_batched   A = L L^T in place (lower triangle; the upper one is left as it was),
//   cho_solve_batched  B <- A^{-1} B in place (forward then backward substitution), the ridge weights W,
// forms the predictions P = Fte W (L, m, k) by batched GEMM, and runs
//   r2_clip_batched    out[l, j] = clip(1 - SSE / SST, 0, 1) of P[l, :, j] against Zte[:, j] (0 if SST = 0).
// All arrays are C-ordered float64. A zero-padded column of F gives a row of A equal to lam n_tr e_i and a
// zero row of B, hence a zero weight: padding does not change the solution.

// One thread block per problem: right-looking Cholesky in global memory, column by column.
// A non-positive pivot (a matrix that is not positive definite) writes NaN, which the caller checks.
// Threads read what other threads wrote before a barrier, so A must not be declared __restrict__: with it the
// compiler may keep a value loaded before __syncthreads (NVRTC hoisted the load of a[j][j] above the barrier,
// and every thread but 0 divided column j by the pivot before its square root). The pivot also travels through
// shared memory, which the barrier orders for every thread.
extern "C" __global__ void cholesky_batched(double* A, const int p) {
    __shared__ double pivot;
    double* a = A + (long long)blockIdx.x * p * p;
    for (int j = 0; j < p; ++j) {
        if (threadIdx.x == 0) {
            const double d = a[(long long)j * p + j];
            const double root = d > 0.0 ? sqrt(d) : nan("");
            a[(long long)j * p + j] = root;
            pivot = root;
        }
        __syncthreads();
        const double djj = pivot;
        for (int i = j + 1 + threadIdx.x; i < p; i += blockDim.x) a[(long long)i * p + j] /= djj;
        __syncthreads();
        const int m = p - j - 1;                       // trailing (m x m) lower triangle
        for (long long e = threadIdx.x; e < (long long)m * m; e += blockDim.x) {
            const int r = j + 1 + (int)(e / m), c = j + 1 + (int)(e % m);
            if (c <= r) a[(long long)r * p + c] -= a[(long long)r * p + j] * a[(long long)c * p + j];
        }
        __syncthreads();
    }
}

// Grid (ceil(k / blockDim.x), L): one thread per right-hand side column c of problem blockIdx.y.
extern "C" __global__ void cho_solve_batched(const double* __restrict__ Lf, double* __restrict__ B,
                                             const int p, const int k) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= k) return;
    const double* l = Lf + (long long)blockIdx.y * p * p;
    double* b = B + (long long)blockIdx.y * p * k;
    for (int i = 0; i < p; ++i) {                     // L y = b
        double s = b[(long long)i * k + c];
        for (int t = 0; t < i; ++t) s -= l[(long long)i * p + t] * b[(long long)t * k + c];
        b[(long long)i * k + c] = s / l[(long long)i * p + i];
    }
    for (int i = p - 1; i >= 0; --i) {                // L^T w = y
        double s = b[(long long)i * k + c];
        for (int t = i + 1; t < p; ++t) s -= l[(long long)t * p + i] * b[(long long)t * k + c];
        b[(long long)i * k + c] = s / l[(long long)i * p + i];
    }
}

// Grid (ceil(k / blockDim.x), L): one thread per feature j of problem blockIdx.y; Zte (m, k) is shared by
// all problems, P is (L, m, k), out is (L, k). SST is taken about the held-out mean (as r2_score).
extern "C" __global__ void r2_clip_batched(const double* __restrict__ Zte, const double* __restrict__ P,
                                           double* __restrict__ out, const int m, const int k) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const double* pr = P + (long long)blockIdx.y * m * k;
    double mean = 0.0;
    for (int i = 0; i < m; ++i) mean += Zte[(long long)i * k + j];
    mean /= m;
    double sse = 0.0, sst = 0.0;
    for (int i = 0; i < m; ++i) {
        const double z = Zte[(long long)i * k + j];
        const double e = z - pr[(long long)i * k + j];
        sse += e * e;
        sst += (z - mean) * (z - mean);
    }
    double r2 = sst > 0.0 ? 1.0 - sse / sst : 0.0;
    r2 = r2 < 0.0 ? 0.0 : (r2 > 1.0 ? 1.0 : r2);
    out[(long long)blockIdx.y * k + j] = r2;
}
