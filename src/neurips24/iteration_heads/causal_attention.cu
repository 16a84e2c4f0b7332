// Fused causal attention that also returns its maps (Cabannes et al. 2024: the attention metrics of §4 read
// the maps of every test sequence). One block per (model, sequence, head) g, one thread per query row i:
//   A[g, i, j] = softmax_j( q[g, i] . k[g, j] / sqrt(dh) ) for j <= i, 0 for j > i;   z[g, i] = sum_j A[g, i, j] v[g, j].
// Reference: neurips24.iteration_heads.kernels.attention_reference (torch), the same operations in float32.
extern "C" __global__ void causal_attention(const float* __restrict__ q, const float* __restrict__ k,
                                           const float* __restrict__ v, float* __restrict__ A,
                                           float* __restrict__ z, const int T, const int dh) {
    const long long g = blockIdx.x;
    const int i = threadIdx.x;
    if (i >= T) return;
    const float* qi = q + (g * T + i) * dh;
    const float* kg = k + g * T * dh;
    const float* vg = v + g * T * dh;
    float* Ai = A + (g * T + i) * T;
    float* zi = z + (g * T + i) * dh;
    const float scale = rsqrtf((float)dh);
    float m = -3.402823466e38f;                    // -FLT_MAX (NVRTC has no <cmath> constants)
    for (int j = 0; j <= i; ++j) {                 // scores, kept in the output row, and their maximum
        float s = 0.f;
        for (int c = 0; c < dh; ++c) s += qi[c] * kg[j * dh + c];
        s *= scale;
        Ai[j] = s;
        m = fmaxf(m, s);
    }
    float total = 0.f;
    for (int j = 0; j <= i; ++j) {
        const float e = expf(Ai[j] - m);
        Ai[j] = e;
        total += e;
    }
    const float inv = 1.f / total;
    for (int j = 0; j <= i; ++j) Ai[j] *= inv;
    for (int j = i + 1; j < T; ++j) Ai[j] = 0.f;   // causal: future keys get no weight
    for (int c = 0; c < dh; ++c) {
        float acc = 0.f;
        for (int j = 0; j <= i; ++j) acc += Ai[j] * vg[j * dh + c];
        zi[c] = acc;
    }
}
