"""The entanglement score (ES) of a forget set with the retain set (paper Sec. 3.2, the official
``surgical_plugins/overlap.py: calculate_FC``), and the ES-graded forget sets (``cluster.py``).

With φ the original model's penultimate embedding, μ_R and μ_S the mean embeddings of the retain set R and the
forget set S, and μ = (μ_R + μ_S)/2:

    ES(R, S) = [ (1/|R|) Σ_{x∈R} ||φ(x) − μ_R||² + (1/|S|) Σ_{x∈S} ||φ(x) − μ_S||² ]
               / [ ½ (||μ_R − μ||² + ||μ_S − μ||²) ].                                             (ES)

Within-set spread over between-set separation: a high ES means S sits inside R in embedding space, so that
forgetting S while keeping R pulls in opposite directions. (The official code averages batch means to get
μ_R, μ_S; we use exact means.)
"""
from __future__ import annotations

import numpy as np


def entanglement_score(phi_retain, phi_forget) -> float:
    """ES of a forget set S with a retain set R, from their embeddings (equation (ES)).

    Parameters
    ----------
    phi_retain : (|R|, h) float embeddings of the retain set; phi_forget : (|S|, h) of the forget set.

    Returns
    -------
    float >= 0 (inf if the two means coincide).

    Raises
    ------
    ValueError on empty sets, mismatched widths or non-finite values.
    """
    r = np.asarray(phi_retain, dtype=float)
    s = np.asarray(phi_forget, dtype=float)
    if r.ndim != 2 or s.ndim != 2 or r.shape[1] != s.shape[1] or len(r) == 0 or len(s) == 0:
        raise ValueError(f"phi_retain and phi_forget must be non-empty (n, h) arrays of one width, got {r.shape} "
                         f"and {s.shape}")
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(s))):
        raise ValueError("embeddings must be finite")
    mu_r, mu_s = r.mean(0), s.mean(0)
    mu = (mu_r + mu_s) / 2
    intra = ((r - mu_r) ** 2).sum(1).mean() + ((s - mu_s) ** 2).sum(1).mean()
    inter = (((mu_r - mu) ** 2).sum() + ((mu_s - mu) ** 2).sum()) / 2
    return float(intra / inter) if inter > 0 else float("inf")
