// Fused per-group quantize-dequantize with cherries (book's own kernel for CherryQ, Cui & Wang, NeurIPS 2024).
// Reference: neurips24.cherryq.quantizer.quantize_reference (NumPy float64), which this kernel matches bit for
// bit: every operation uses the _rn intrinsics so that NVRTC cannot fuse them into FMAs, and rint() rounds half
// to even like numpy.round.
//
// One thread per (row, group) of the compacted row (the row without its cherries).
// Shapes (C order):
//   w       (out, n)       float64 weights
//   cherry  (out, k)       int64 cherry columns of each row, SORTED ascending (k may be 0)
//   w_out   (out, n)       float64 out: quantize-dequantized weights, cherries copied unchanged
//   levels  (out, n - k)   int32 out: integer level of each non-cherry weight, compacted order
//   scales  (out, n_groups) float64 out
// bits <= 4: s = (max|w| + 1e-6) / 2^(b-1), L = rint(clamp(w/s, -q, q) - 0.5), q = 2^(b-1) - 0.01, value (L+0.5)s
// bits  > 4: s = (max|w| + 1e-6) / (2^(b-1) - 1), L = clamp(rint(w/s), -(2^(b-1)-1), 2^(b-1)-1), value L s

// column of compacted index j in a row whose sorted cherries are c[0..k-1]; *next = first cherry after it
__device__ long long column_of(long long j, const long long* c, long long k, long long* next) {
    long long col = j, p = 0;
    while (p < k && c[p] <= col) { ++col; ++p; }
    *next = p;
    return col;
}

extern "C" __global__ void cherry_quant(const double* __restrict__ w, const long long* __restrict__ cherry,
                                        double* __restrict__ w_out, int* __restrict__ levels,
                                        double* __restrict__ scales,
                                        const long long out, const long long n, const long long k,
                                        const long long group_size, const int bits) {
    const long long m = n - k;
    const long long n_groups = (m + group_size - 1) / group_size;
    const long long total = out * n_groups;
    const bool full = bits <= 4;
    const double half = (double)(1LL << (bits - 1));
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long r = t / n_groups, g = t % n_groups;
        const double* row = w + r * n;
        const long long* c = cherry + r * k;
        const long long j0 = g * group_size;
        const long long j1 = (j0 + group_size < m) ? j0 + group_size : m;
        long long p;
        long long col = column_of(j0, c, k, &p);
        const long long col0 = col, p0 = p;
        double amax = 0.0;
        for (long long j = j0; j < j1; ++j) {                    // pass 1: absmax over non-cherry weights
            while (p < k && c[p] == col) { ++col; ++p; }
            const double a = fabs(row[col]);
            if (a > amax) amax = a;
            ++col;
        }
        const double s = full ? __ddiv_rn(__dadd_rn(amax, 1e-6), half)
                              : __ddiv_rn(__dadd_rn(amax, 1e-6), __dadd_rn(half, -1.0));
        scales[r * n_groups + g] = s;
        const double qmax = __dadd_rn(half, -1e-2), lmax = __dadd_rn(half, -1.0);
        col = col0; p = p0;
        for (long long j = j0; j < j1; ++j) {                    // pass 2: quantize-dequantize
            while (p < k && c[p] == col) { ++col; ++p; }
            const double x = __ddiv_rn(row[col], s);
            double L, v;
            if (full) {
                const double y = fmin(fmax(x, -qmax), qmax);
                L = rint(__dadd_rn(y, -0.5));
                v = __dmul_rn(__dadd_rn(L, 0.5), s);
            } else {
                L = fmin(fmax(rint(x), -lmax), lmax);
                v = __dmul_rn(L, s);
            }
            w_out[r * n + col] = v;
            levels[r * m + j] = (int)L;
            ++col;
        }
        if (g == 0) {                                            // copy the cherries once per row
            for (long long q = 0; q < k; ++q) w_out[r * n + c[q]] = row[c[q]];
        }
    }
}
