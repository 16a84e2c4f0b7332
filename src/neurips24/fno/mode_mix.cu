// Per-mode complex channel mix of the FNO spectral convolution (book's own kernel).
//   out[g, s, i, k] = sum_j R[g, k, i, j] * a_hat[g, s, j, k]
// Shapes (C order, complex128 stored as double2):
//   a_hat (G, S, D, K), R (G, K, D, D), out (G, S, D, K).
// One thread per output element; the reference is neurips24.fno.layer.mode_mix_reference.
extern "C" __global__ void mode_mix(const double2* __restrict__ a_hat,
                                    const double2* __restrict__ R,
                                    double2* __restrict__ out,
                                    const long long G, const long long S,
                                    const long long D, const long long K) {
    const long long total = G * S * D * K;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        const long long k = idx % K;
        const long long i = (idx / K) % D;
        const long long s = (idx / (K * D)) % S;
        const long long g = idx / (K * D * S);
        const double2* a = a_hat + ((g * S + s) * D) * K + k;   // a[j * K]
        const double2* r = R + ((g * K + k) * D + i) * D;       // r[j]
        double re = 0.0, im = 0.0;
        for (long long j = 0; j < D; ++j) {
            const double2 x = a[j * K];
            const double2 w = r[j];
            re += w.x * x.x - w.y * x.y;
            im += w.x * x.y + w.y * x.x;
        }
        out[idx] = make_double2(re, im);
    }
}
