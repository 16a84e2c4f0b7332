// MeLLoC kernels (this book's CUDA port of the NumPy/SciPy reference in stencil.py).
// melloc_residual: r = f - K q for a periodic 3x3 integer template m (correlation: (K q)[i, j] =
//                  sum m[1 + di][1 + dj] q[i + di, j + dj]), exact in int64 (encode: f = K q with f = 0;
//                  decode: the verification residual).
// melloc_divide:   the spectral step of the FFT solve, spec[i, j] /= lambda(i, j) on the rfft2 grid,
//                  lambda = sum m[1 + di][1 + dj] exp(i (di th + dj ph)) (complex), the (0, 0) entry set to zero.

extern "C" __global__ void melloc_residual(const long long* q, const long long* f, long long* r,
                                           int H, int W, const long long* m) {
    int j = blockDim.x * blockIdx.x + threadIdx.x;
    int i = blockDim.y * blockIdx.y + threadIdx.y;
    if (i >= H || j >= W) return;
    int rows[3] = {(i == 0) ? H - 1 : i - 1, i, (i == H - 1) ? 0 : i + 1};
    int cols[3] = {(j == 0) ? W - 1 : j - 1, j, (j == W - 1) ? 0 : j + 1};
    long long k = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            k += m[3 * a + b] * q[(long long)rows[a] * W + cols[b]];
    long long idx = (long long)i * W + j;
    r[idx] = (f ? f[idx] : 0) - k;
}

extern "C" __global__ void melloc_divide(double2* spec, int H, int W, const double* m) {
    int Wh = W / 2 + 1;
    int j = blockDim.x * blockIdx.x + threadIdx.x;
    int i = blockDim.y * blockIdx.y + threadIdx.y;
    if (i >= H || j >= Wh) return;
    long long idx = (long long)i * Wh + j;
    if (i == 0 && j == 0) { spec[idx].x = 0.0; spec[idx].y = 0.0; return; }
    const double two_pi = 6.283185307179586476925286766559;
    double th = two_pi * i / H, ph = two_pi * j / W;
    double lr = 0.0, li = 0.0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            double ang = (a - 1) * th + (b - 1) * ph;
            lr += m[3 * a + b] * cos(ang);
            li += m[3 * a + b] * sin(ang);
        }
    double den = lr * lr + li * li;
    double sr = spec[idx].x, si = spec[idx].y;
    spec[idx].x = (sr * lr + si * li) / den;
    spec[idx].y = (si * lr - sr * li) / den;
}
