"""The fused surrogate + gradient kernel against torch autograd and finite differences (defer.kernels)."""
from __future__ import annotations

import pytest
import torch

from neurips24.defer import kernels as K
from neurips24.defer import losses as L

CASES = [("ce", None), ("ova", None), ("rs", None), ("general", None), ("general", 0.7), ("general", 1.0),
         ("rl2d", None), ("rl2d", 0.5), ("rl2d", 1.0)]


def _case(seed=0, N=12, n=5, lead=()):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(*lead, N, n + 1, generator=g, dtype=torch.float64) * 3
    y = torch.randint(0, n, (N,), generator=g)
    c = torch.rand(*lead, N, generator=g, dtype=torch.float64)
    c[..., 0], c[..., 1] = 0.0, 1.0                      # the edges: full credit and none (log w = −inf)
    return h, y, c


@pytest.mark.parametrize("name,q", CASES)
@pytest.mark.parametrize("lead", [(), (3,), (2, 2)])
def test_fused_matches_autograd(name, q, lead):
    h, y, c = _case(1, lead=lead)
    h.requires_grad_(True)
    loss = L.surrogate(name, h, y, c, q=q)
    (grad,) = torch.autograd.grad(loss.sum(), h)
    f_loss, f_grad = K.fused_loss_grad(h.detach(), y, c, name, q)
    torch.testing.assert_close(f_loss, loss.detach())
    torch.testing.assert_close(f_grad, grad)


@pytest.mark.parametrize("name,q", CASES)
def test_fused_autograd_function_by_finite_differences(name, q):
    h, y, c = _case(2, N=4, n=3, lead=(2,))
    h = h.transpose(-1, -2).contiguous().requires_grad_(True)        # the kernel's layout (K, n + 1, N)
    e_y, w, log_w = K.prepare(y, c, h.shape[-2], torch.float64)
    if name == "ova":
        args = (e_y, w, None, None, None, None)
    else:
        joint, q0, scale = K.family(name, q)
        args = (e_y, w, log_w, torch.full((2,), joint), torch.full((2,), q0, dtype=torch.float64),
                torch.full((2,), scale, dtype=torch.float64))
    assert torch.autograd.gradcheck(lambda z: K.FusedSurrogate.apply(z, *args), (h,), eps=1e-6, atol=1e-6)


def test_mixed_family_in_one_call():
    # K models with different Ψ in one call give each model's own loss and gradient
    h, y, c = _case(3, lead=(4,))
    specs = [("rl2d", 1.0), ("rs", None), ("general", 0.7), ("ce", None)]
    fam = [K.family(n, q) for n, q in specs]
    e_y, w, log_w = K.prepare(y, c, h.shape[-1], torch.float64)
    loss, grad = K._fused(h.transpose(-1, -2), e_y, w, log_w, torch.tensor([f[0] for f in fam]),
                          torch.tensor([f[1] for f in fam], dtype=torch.float64),
                          torch.tensor([f[2] for f in fam], dtype=torch.float64))
    for k, (n, q) in enumerate(specs):
        ref_loss, ref_grad = K.fused_loss_grad(h[k], y, c[k], n, q)
        torch.testing.assert_close(loss[k], ref_loss)
        torch.testing.assert_close(grad[k].T, ref_grad)


def test_closed_form_ce_gradient_by_hand():
    # equal scores, n = 2: s = 1/3; ∇ = (1 + w) s − e_y − w e_⊥
    h = torch.zeros(1, 3, dtype=torch.float64)
    _, g = K.fused_loss_grad(h, torch.tensor([0]), torch.tensor([0.25], dtype=torch.float64), "ce")
    torch.testing.assert_close(g, torch.tensor([[1.75 / 3 - 1, 1.75 / 3, 1.75 / 3 - 0.75]], dtype=torch.float64))


def test_bad_input():
    h, y, c = _case()
    with pytest.raises(ValueError, match="name must be one of"):
        K.fused_loss_grad(h, y, c, "hinge")
    with pytest.raises(ValueError, match="q must lie in"):
        K.fused_loss_grad(h, y, c, "rl2d", q=0.0)
    with pytest.raises(ValueError, match="y must lie in"):
        K.fused_loss_grad(h, y + 5, c, "ce")
    with pytest.raises(ValueError, match="not a softmax surrogate"):
        K.family("ova", None)
