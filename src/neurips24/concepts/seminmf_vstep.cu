// Semi-NMF activation step (V-step) of Parekh et al. 2024, eq. (2): for every representation z_m, FISTA on
//   min_{v >= 0} 1/2 ||z_m - v U||^2 + alpha * sum(v),
// i.e. v <- max(0, y - eta * (y G - z_m U^T + alpha)), G = U U^T, eta = 1 / lambda_max(G), then Nesterov momentum.
// Rows are independent: one block per row m runs every iteration with G, y in shared memory (one launch for the
// whole V-step instead of ~5 array operations per iteration). Thread k owns activation k (blockDim.x >= K).
// Reference: neurips24.concepts.seminmf.encode_nonneg (NumPy, same operations in the same order, tol = 0).
extern "C" __global__ void snmf_vstep(const double* __restrict__ ZUt,  // (M, K): Z U^T
                                      const double* __restrict__ G,    // (K, K): U U^T
                                      const double* __restrict__ V0,   // (M, K): warm start
                                      double* __restrict__ V,          // (M, K): output, >= 0
                                      long long M, int K, double alpha, double eta, int n_iter) {
    extern __shared__ double sh[];
    double* Gs = sh;            // K * K
    double* y = sh + K * K;     // K
    const int k = threadIdx.x;
    for (int i = threadIdx.x; i < K * K; i += blockDim.x) Gs[i] = G[i];
    __syncthreads();
    for (long long m = blockIdx.x; m < M; m += gridDim.x) {
        double zu = 0.0, vk = 0.0;
        if (k < K) {
            zu = ZUt[m * K + k];
            vk = fmax(V0[m * K + k], 0.0);
            y[k] = vk;
        }
        __syncthreads();
        double t = 1.0;
        for (int it = 0; it < n_iter; ++it) {
            double vnew = 0.0;
            if (k < K) {
                double g = 0.0;
                for (int j = 0; j < K; ++j) g += y[j] * Gs[j * K + k];   // (y G)_k
                vnew = fmax(y[k] - eta * (g - zu + alpha), 0.0);        // projected gradient step
            }
            const double tnew = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
            __syncthreads();                                             // every thread has read y
            if (k < K) {
                y[k] = vnew + ((t - 1.0) / tnew) * (vnew - vk);          // momentum
                vk = vnew;
            }
            t = tnew;
            __syncthreads();
        }
        if (k < K) V[m * K + k] = vk;
        __syncthreads();
    }
}
