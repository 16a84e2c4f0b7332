"""Whole-number floats and bools are not accepted where an integer count is documented."""
import numpy as np
import pytest

from neurips24.fno.data import heat_dataset
from neurips24.fno.experiment import two_inputs
from neurips24.fno.meanfield import correlation_recursion, gaussian_pair_expectation
from neurips24.fno.model import DeepFNO
from neurips24.fno.montecarlo import simulate_correlation
from neurips24.fno.train import train_fno


@pytest.mark.parametrize("call", [
    lambda: heat_dataset(2.0, 16),
    lambda: heat_dataset(2, 16.0),
    lambda: DeepFNO(2.0, 4, 2, 8),
    lambda: DeepFNO(2, True, 2, 8),
    lambda: simulate_correlation(two_inputs(8), [1.0], n_modes=2, depth=2, width=4.0),
    lambda: correlation_recursion(two_inputs(8), sigma_w2=1, sigma_r2=1, sigma_b2=0.1, n_modes=2,
                                  depth=2.5, activation="tanh"),
    lambda: gaussian_pair_expectation(1.0, 1.0, 0.5, "tanh", n_quad=10.0),
])
def test_float_counts_raise_type_error(call):
    with pytest.raises(TypeError, match="must be an int"):
        call()


def test_quadrature_node_count_is_bounded():
    with pytest.raises(ValueError, match="n_quad"):
        gaussian_pair_expectation(1.0, 1.0, 0.5, "tanh", n_quad=400)


def test_train_steps_must_be_int():
    u = np.ones((4, 8))
    with pytest.raises(TypeError, match="steps"):
        train_fno(u, u, u, u, sigma2=2.0, depth=1, width=2, n_modes=2, steps=3.0)
