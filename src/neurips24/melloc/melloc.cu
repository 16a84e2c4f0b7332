// MeLLoC kernels (this book's CUDA port of the NumPy/SciPy reference in stencil.py).
// melloc_residual: r = f - K q for the periodic template K = a*L5 + b*Lx, exact in int64 (encode: f = K q with
//                  f = 0; decode: the verification residual).
// melloc_divide:   the spectral step of the FFT solve, spec[i, j] /= lambda(i, j) on the rfft2 grid,
//                  lambda = a(2cos th + 2cos ph - 4) + b(4 cos th cos ph - 4), the (0, 0) entry set to zero.

extern "C" __global__ void melloc_residual(const long long* q, const long long* f, long long* r,
                                           int H, int W, long long a, long long b) {
    int j = blockDim.x * blockIdx.x + threadIdx.x;
    int i = blockDim.y * blockIdx.y + threadIdx.y;
    if (i >= H || j >= W) return;
    int im = (i == 0) ? H - 1 : i - 1, ip = (i == H - 1) ? 0 : i + 1;
    int jm = (j == 0) ? W - 1 : j - 1, jp = (j == W - 1) ? 0 : j + 1;
    long long c = q[(long long)i * W + j];
    long long plus = q[(long long)im * W + j] + q[(long long)ip * W + j] + q[(long long)i * W + jm] + q[(long long)i * W + jp];
    long long cross = q[(long long)im * W + jm] + q[(long long)im * W + jp] + q[(long long)ip * W + jm] + q[(long long)ip * W + jp];
    long long k = a * (plus - 4 * c) + b * (cross - 4 * c);
    long long idx = (long long)i * W + j;
    r[idx] = (f ? f[idx] : 0) - k;
}

extern "C" __global__ void melloc_divide(double2* spec, int H, int W, double a, double b) {
    int Wh = W / 2 + 1;
    int j = blockDim.x * blockIdx.x + threadIdx.x;
    int i = blockDim.y * blockIdx.y + threadIdx.y;
    if (i >= H || j >= Wh) return;
    long long idx = (long long)i * Wh + j;
    if (i == 0 && j == 0) { spec[idx].x = 0.0; spec[idx].y = 0.0; return; }
    const double two_pi = 6.283185307179586476925286766559;
    double cx = cos(two_pi * i / H), cy = cos(two_pi * j / W);
    double lam = a * (2.0 * cx + 2.0 * cy - 4.0) + b * (4.0 * cx * cy - 4.0);
    spec[idx].x /= lam;
    spec[idx].y /= lam;
}
