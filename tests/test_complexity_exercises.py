"""The feature complexity chapter's executable exercise (complexity.exercises): scikit-learn's ridge with a held-out
R² passes, the in-sample R² and an unclipped R² (the controls) do not, the unfilled scaffold is 'not attempted', a
non-callable is a TypeError."""
import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score

from neurips24.complexity import exercises


def _fit(F, Z, train, lam):
    Fs = (F - F[train].mean(0)) / F[train].std(0)
    Zs = (Z - Z[train].mean(0)) / Z[train].std(0)
    model = Ridge(alpha=lam * len(train), fit_intercept=False).fit(Fs[train], Zs[train])   # scikit-learn's ridge
    return Fs, Zs, model


def _r2(F, Z, train, test, lam, rows="test", clip=True):
    Fs, Zs, model = _fit(F, Z, train, lam)
    ix = test if rows == "test" else train
    r2 = r2_score(Zs[ix], model.predict(Fs[ix]), multioutput="raw_values")
    return np.clip(r2, 0, 1) if clip else r2


def _scaffold(F, Z, train, test, lam):
    raise NotImplementedError("fill in")


def test_scikit_learns_ridge_passes(capsys):
    assert exercises.check_v_information(_r2) is True
    assert "Right" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [
    lambda F, Z, train, test, lam: _r2(F, Z, train, test, lam, rows="train"),   # in-sample R²
    lambda F, Z, train, test, lam: _r2(F, Z, train, test, lam, clip=False),     # not clipped at 0
    lambda F, Z, train, test, lam: _r2(F, Z, train, test, 1.0),                 # ignores λ
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_v_information(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_v_information(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_v_information({"lam": 1.0})
