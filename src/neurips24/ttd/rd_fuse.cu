// Relative dominability and weighted feature fusion in one pass (book's own kernel for TTD, paper Eq. 6 and Alg. 1).
// One thread per pixel p:
//   z_m   = exp(-gamma * loss[m, p])                         (the code's exp(-50 * mse))
//   w_m   = M * exp(z_m) / sum_k exp(z_k)                     (softmax over the sources, times M)
//   fused[c, p] = (1/M) * sum_m w_m * feat[m, c, p]           (the mean rule with the weights on the features)
// loss: (M, P) float32; feat: (M, C, P) float32; weights: (M, P) float32 out; fused: (C, P) float32 out.
// M is at most 8 (the sources of one fusion). Reference: neurips24.ttd.kernels.rd_fuse_reference.

extern "C" __global__ void rd_fuse(const float* __restrict__ loss, const float* __restrict__ feat,
                                   const long long P, const int M, const int C, const float gamma,
                                   float* __restrict__ weights, float* __restrict__ fused) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= P) return;
    float z[8];
    float zmax = -1.0e30f;
    for (int m = 0; m < M; ++m) {
        z[m] = expf(-gamma * loss[(long long)m * P + p]);
        zmax = fmaxf(zmax, z[m]);
    }
    float total = 0.0f;
    for (int m = 0; m < M; ++m) {
        z[m] = expf(z[m] - zmax);
        total += z[m];
    }
    for (int m = 0; m < M; ++m) {
        z[m] = (float)M * z[m] / total;
        weights[(long long)m * P + p] = z[m];
    }
    for (int c = 0; c < C; ++c) {
        float acc = 0.0f;
        for (int m = 0; m < M; ++m) acc += z[m] * feat[((long long)m * C + c) * P + p];
        fused[(long long)c * P + p] = acc / (float)M;
    }
}
