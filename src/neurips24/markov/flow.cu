// Gradient flow of the reduced (e, w, b) model of Makkuva et al. (NeurIPS 2024), one thread per initialisation.
// Explicit Euler steps of size lr on the exact population loss; bias either held at b*(e, w) (free_bias = 0)
// or trained (free_bias = 1, started at b0 when have_b = 1, else at b*). Reference (same arithmetic, same order):
// neurips24.markov.flow.gradient_flow_reference. Arrays: e, w, b, loss_out all (n,) float64, updated in place.

__device__ __forceinline__ double logaddexp_d(double x, double y) {
    const double m = fmax(x, y);
    return m + log1p(exp(-fabs(x - y)));
}

__device__ __forceinline__ double sigmoid_d(double x) { return 0.5 * (1.0 + tanh(0.5 * x)); }

__device__ __forceinline__ double log_sigmoid_d(double x) { return -logaddexp_d(0.0, -x); }

__device__ double optimal_bias_d(double e, double w, double p, double q) {
    const double e2 = e * e;
    const double a = (1.0 + 2.0 * w * fabs(w)) * e2;
    const double delta = p - q;
    const double log4pq = log(4.0 * p * q);
    double log_num;
    if (delta == 0.0) {
        log_num = 0.5 * (log4pq + a);
    } else {
        const double log_d = log(fabs(delta));
        const double log_s = 0.5 * logaddexp_d(2.0 * log_d, log4pq + a);
        log_num = delta > 0.0 ? logaddexp_d(log_d, log_s) : log4pq + a - logaddexp_d(log_s, log_d);
    }
    return 0.5 * e2 + log_num - log(2.0 * q) - a;
}

extern "C" __global__ void reduced_flow(double* __restrict__ e_io, double* __restrict__ w_io,
                                        double* __restrict__ b_io, double* __restrict__ loss_out,
                                        const long long n, const double p, const double q,
                                        const double pi0, const double pi1, const double lr,
                                        const long long steps, const int free_bias, const int have_b) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    double e = e_io[i], w = w_io[i];
    double b = (free_bias && have_b) ? b_io[i] : optimal_bias_d(e, w, p, q);
    for (long long s = 0; s < steps; ++s) {
        if (!free_bias) b = optimal_bias_d(e, w, p, q);
        const double e2 = e * e;
        const double ww = 2.0 * w * fabs(w);
        const double f1 = e2 * (0.5 + ww) + b;
        const double f0 = b - 0.5 * e2;
        const double g1 = pi1 * (sigmoid_d(f1) - (1.0 - q));
        const double g0 = pi0 * (sigmoid_d(f0) - p);
        const double ge = 2.0 * e * (0.5 + ww) * g1 - e * g0;
        const double gw = 4.0 * fabs(w) * e2 * g1;
        if (free_bias) b = b - lr * (g1 + g0);
        e = e - lr * ge;
        w = w - lr * gw;
    }
    if (!free_bias) b = optimal_bias_d(e, w, p, q);
    const double e2 = e * e;
    const double f1 = e2 * (0.5 + 2.0 * w * fabs(w)) + b;
    const double f0 = b - 0.5 * e2;
    loss_out[i] = -pi1 * (q * log_sigmoid_d(-f1) + (1.0 - q) * log_sigmoid_d(f1))
                  - pi0 * (p * log_sigmoid_d(f0) + (1.0 - p) * log_sigmoid_d(-f0));
    e_io[i] = e;
    w_io[i] = w;
    b_io[i] = b;
}
