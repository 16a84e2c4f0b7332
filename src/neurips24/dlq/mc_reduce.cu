// Monte Carlo reduction of the detectability tables (book's own kernel).
// Reference: neurips24.dlq.tables.reduce_chunk (torch, float64 matrix products); neurips24.dlq.kernels
// checks the two against each other.
//
// For every transform a < K, basis function k < Fk and set U (a row of idx), the partial sums over this
// block's samples s of
//     X_s = T[s, a] * prod_{i in U} F[s, k, i]     and     X_s^2,
// written to part_sum / part_sq at [blockIdx.y, a, k, u]; the caller adds the partials over blockIdx.y
// (a fixed order, so the result does not depend on thread timing). Accumulators are float64.
//
// Shapes (C order, float64 unless noted):
//   T    (n, K)      label transforms          F  (n, Fk, d)  basis functions psi_k(x_i)
//   idx  (nU, m)     int32 coordinates of each set U, padded with -1 (a repeated coordinate is allowed)
//   part_sum, part_sq  (gridDim.y, K, Fk, nU)
// Grid: x covers the K*Fk*nU outputs (one thread each), y splits the samples into ranges of per_block.
// Each block stages `tile` samples of T and F in shared memory (tile*(K + Fk*d) doubles), then every
// thread runs over the tile for its output.
extern "C" __global__ void mc_reduce(const double* __restrict__ T, const double* __restrict__ F,
                                     const int* __restrict__ idx, const long long n, const int K,
                                     const int Fk, const int d, const int nU, const int m,
                                     const long long per_block, const int tile,
                                     double* __restrict__ part_sum, double* __restrict__ part_sq) {
    extern __shared__ double buf[];
    const int row = K + Fk * d;                      // doubles per staged sample
    const long long n_out = (long long)K * Fk * nU;
    const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const bool active = o < n_out;
    const int a = active ? (int)(o / ((long long)Fk * nU)) : 0;
    const int k = active ? (int)((o / nU) % Fk) : 0;
    const int u = active ? (int)(o % nU) : 0;
    const long long start = blockIdx.y * per_block;
    long long stop = start + per_block;
    if (stop > n) stop = n;
    double acc = 0.0, acc_sq = 0.0;
    for (long long s0 = start; s0 < stop; s0 += tile) {
        const int len = (int)((stop - s0) < tile ? (stop - s0) : tile);
        for (int e = threadIdx.x; e < len * row; e += blockDim.x) {   // cooperative load of the tile
            const int s = e / row, c = e % row;
            buf[e] = c < K ? T[(s0 + s) * K + c] : F[(s0 + s) * (long long)(Fk * d) + (c - K)];
        }
        __syncthreads();
        if (active) {
            for (int s = 0; s < len; ++s) {
                const double* r = buf + s * row;
                double x = r[a];
                for (int j = 0; j < m; ++j) {
                    const int i = idx[u * m + j];
                    if (i < 0) break;
                    x = x * r[K + k * d + i];
                }
                acc += x;
                acc_sq += x * x;
            }
        }
        __syncthreads();
    }
    if (active) {
        part_sum[blockIdx.y * n_out + o] = acc;
        part_sq[blockIdx.y * n_out + o] = acc_sq;
    }
}
