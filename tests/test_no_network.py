"""The unit tests run with the network blocked (pytest-socket), and the package needs none."""
from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import pytest_socket


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_opening_a_socket_is_blocked():
    with pytest.raises(pytest_socket.SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_name_lookup_is_blocked():
    with pytest.raises(pytest_socket.SocketBlockedError):
        socket.getaddrinfo("example.org", 80)


def test_package_works_with_sockets_disabled_in_process():
    from neurips24.fno.meanfield import correlation_recursion

    x = np.arange(8) / 8
    u = np.stack([np.sin(2 * np.pi * x), np.cos(2 * np.pi * x)])
    c, q, _ = correlation_recursion(u, sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.1, n_modes=2, depth=2,
                                    activation="tanh")
    assert c.shape == (3,) and np.all(np.isfinite(c)) and np.all(q > 0)


def test_import_and_run_in_fresh_interpreter_with_sockets_disabled():
    """Importing ``neurips24`` and ``neurips24.fno`` from scratch must not touch the network."""
    code = textwrap.dedent("""
        import numpy as np
        import pytest_socket
        pytest_socket.disable_socket()
        import neurips24, neurips24.fno
        from neurips24.fno.meanfield import correlation_recursion
        x = np.arange(8) / 8
        u = np.stack([np.sin(2 * np.pi * x), np.cos(2 * np.pi * x)])
        c, q, _ = correlation_recursion(u, sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.1, n_modes=2, depth=2,
                                        activation="tanh")
        assert np.all(np.isfinite(c)), c
        print("ok", c.shape)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ok (3,)" in out.stdout
