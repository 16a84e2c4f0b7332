// The learning-to-defer surrogates and their gradients, one thread per point (book's own kernel).
//
// Layout (that of neurips24.defer.kernels._fused): scores h of shape (n + 1, N), classes on the slow axis and
// points on the fast one, so that thread i reads h[k * N + i] and a warp's reads are coalesced. Index n is the
// deferral output (written ⊥ below). For point i with label y (in [0, n)) and cost c (in [0, 1]), w = 1 − c:
//   s = softmax(h) over the n + 1 scores (max subtracted: stable), log s_k = h_k − lse(h)
//   mode 1, joint (RL2D, RS):  t = s_y + w s_⊥,   L = scale · Ψ(t),
//                              dL/dh = scale · a(t) (s − r),  r = (s_y e_y + w s_⊥ e_⊥) / t
//   mode 0, sum (general, CE): L = scale · (Ψ(s_y) + w Ψ(s_⊥)),
//                              dL/dh = scale · [(a(s_y) + w a(s_⊥)) s − a(s_y) e_y − w a(s_⊥) e_⊥]
//   mode 2, OvA:               L = φ(h_y) + Σ_{k<n, k≠y} φ(−h_k) + c φ(−h_⊥) + (1 − c) φ(h_⊥), φ(z) = log(1 + e^{−z})
//                              dL/dh_k = σ(h_k) − [k = y] − w [k = ⊥]
// with Ψ(e^u) = −u, a = 1 for q = 0 (Ψ = −log) and Ψ(e^u) = (1 − e^{qu}) / q, a = e^{qu} for q ∈ (0, 1] (Ψ_q);
// t is formed in log space (log-add-exp) so that w = 0 (log w = −inf) and tiny s_y are exact.
// The reference is neurips24.defer.kernels.fused_loss_grad (torch); float32 and float64 instantiations.

template <typename T>
__device__ __forceinline__ void psi_slope(T u, T q, T& value, T& slope) {
    if (q == T(0)) {
        value = -u;
        slope = T(1);
    } else {
        value = -expm1(q * u) / q;
        slope = exp(q * u);
    }
}

template <typename T>
__device__ __forceinline__ T log_add_exp(T a, T b) {
    const T m = a > b ? a : b;
    if (isinf(m)) return m;                       // both −inf (or +inf): no NaN from inf − inf
    return m + log1p(exp(-fabs(a - b)));
}

template <typename T>
__device__ __forceinline__ T softplus(T z) {     // log(1 + e^z), stable
    return (z > T(0) ? z : T(0)) + log1p(exp(-fabs(z)));
}

template <typename T>
__device__ __forceinline__ T sigmoid(T z) {
    if (z >= T(0)) return T(1) / (T(1) + exp(-z));
    const T e = exp(z);
    return e / (T(1) + e);
}

template <typename T>
__device__ void defer_surrogate(const T* __restrict__ h, const long long* __restrict__ labels,
                                const T* __restrict__ cost, const long long N, const int m, const int mode,
                                const T q, const T scale, T* __restrict__ loss, T* __restrict__ grad) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const int n = m - 1;                          // index of ⊥
    const long long y = labels[i];
    const T c = cost[i];
    const T w = T(1) - c;
    const T h_y = h[y * N + i];
    const T h_def = h[(long long)n * N + i];
    if (mode == 2) {                              // OvA: no softmax
        T value = softplus(-h_y) + softplus(h_def) - w * h_def;   // φ(h_y) + c φ(−h_⊥) + w φ(h_⊥)
        for (int k = 0; k < n; ++k) {
            const T hk = h[(long long)k * N + i];
            if (k != y) value += softplus(hk);
            grad[(long long)k * N + i] = sigmoid(hk) - (k == y ? T(1) : T(0));
        }
        grad[(long long)n * N + i] = sigmoid(h_def) - w;
        loss[i] = value;
        return;
    }
    // online max and sum of exponentials: one read of the row
    T mx = h[i];
    T sum = T(1);
    for (int k = 1; k < m; ++k) {
        const T hk = h[(long long)k * N + i];
        if (hk > mx) {
            sum = sum * exp(mx - hk) + T(1);
            mx = hk;
        } else {
            sum += exp(hk - mx);
        }
    }
    const T lse = mx + log(sum);
    const T log_s_y = h_y - lse;
    const T log_s_def = h_def - lse;
    T value, coef_s, coef_y, coef_def;            // dL/dh_k = coef_s s_k − coef_y [k = y] − coef_def [k = ⊥]
    if (mode == 1) {
        const T log_wsd = log1p(-c) + log_s_def;  // log(w s_⊥), −inf at c = 1
        const T log_t = log_add_exp(log_s_y, log_wsd);
        T a;
        psi_slope(log_t, q, value, a);
        coef_s = a;
        coef_y = a * exp(log_s_y - log_t);
        coef_def = a * exp(log_wsd - log_t);
    } else {
        T val_y, a_y, val_d, a_d;
        psi_slope(log_s_y, q, val_y, a_y);
        psi_slope(log_s_def, q, val_d, a_d);
        value = val_y + w * val_d;
        coef_s = a_y + w * a_d;
        coef_y = a_y;
        coef_def = w * a_d;
    }
    for (int k = 0; k < m; ++k) {
        const long long at = (long long)k * N + i;
        T g = coef_s * exp(h[at] - lse);
        if (k == y) g -= coef_y;
        if (k == n) g -= coef_def;
        grad[at] = scale * g;
    }
    loss[i] = scale * value;
}

extern "C" __global__ void defer_surrogate_f32(const float* __restrict__ h, const long long* __restrict__ labels,
                                               const float* __restrict__ cost, const long long N, const int m,
                                               const int mode, const float q, const float scale,
                                               float* __restrict__ loss, float* __restrict__ grad) {
    defer_surrogate<float>(h, labels, cost, N, m, mode, q, scale, loss, grad);
}

extern "C" __global__ void defer_surrogate_f64(const double* __restrict__ h, const long long* __restrict__ labels,
                                               const double* __restrict__ cost, const long long N, const int m,
                                               const int mode, const double q, const double scale,
                                               double* __restrict__ loss, double* __restrict__ grad) {
    defer_surrogate<double>(h, labels, cost, N, m, mode, q, scale, loss, grad);
}
