"""scipy.sparse feature matrices end to end: every solver of TopRanker fits a CSR/CSC matrix
without densifying it and finds what it finds on the dense copy; svmlight files stay sparse
from the reader to the saved model."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from cvxtop import AATP, TopRanker
from cvxtop.io import read_labeled_features
from cvxtop.training import fit_from_file


@pytest.fixture(scope="module")
def sparse_data():
    rng = np.random.default_rng(0)
    X = sp.random(400, 120, density=0.05, format="csr", random_state=1,
                  data_rvs=rng.standard_normal)
    y = (X @ rng.standard_normal(120) + 0.3 * rng.standard_normal(400) > 0.5).astype(int)
    return X, y


@pytest.mark.parametrize("solver,options", [
    ("exact", {"engine": "cutting-plane"}),
    ("exact", {"engine": "direct"}),
    ("gd", {}),
    ("sgd", {"epochs": 3, "batch_size": 100}),
    ("perceptron", {"epochs": 2, "batch_size": 100}),
])
def test_sparse_fit_matches_dense(sparse_data, solver, options):
    X, y = sparse_data
    fit = lambda data: TopRanker("prec@k-avg", k=0.25, C=1.0, solver=solver,  # noqa: E731
                                 random_state=0, **options).fit(data, y)
    sparse_model, dense_model = fit(X), fit(X.toarray())
    if solver == "exact":  # two certified optima agree within the certified gaps
        assert sparse_model.gap_ <= 1e-6
        assert sparse_model.objective_ == pytest.approx(dense_model.objective_, rel=3e-6)
    else:  # the same arithmetic on the same numbers
        np.testing.assert_allclose(sparse_model.coef_, dense_model.coef_, rtol=1e-9,
                                   atol=1e-12)
    np.testing.assert_allclose(sparse_model.decision_function(X),
                               X.toarray() @ sparse_model.coef_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("convert", [sp.csc_matrix, sp.coo_matrix, sp.csr_array,
                                     lambda X: X.astype(np.float32)])
def test_other_sparse_formats_and_dtypes(sparse_data, convert):
    X, y = sparse_data
    reference = TopRanker("prec@k-avg", k=0.25).fit(X, y)
    model = TopRanker("prec@k-avg", k=0.25).fit(convert(X), y)
    # both certified to a 1e-6 gap (float32 also rounds the entries, by about 6e-8)
    assert model.objective_ == pytest.approx(reference.objective_, rel=3e-6)


def test_partial_fit_on_sparse_batches(sparse_data):
    X, y = sparse_data
    model = TopRanker("prec@k-avg", k=0.25, solver="sgd")
    for start in range(0, 400, 100):
        model.partial_fit(X[start:start + 100], y[start:start + 100])
    dense = TopRanker("prec@k-avg", k=0.25, solver="sgd")
    for start in range(0, 400, 100):
        dense.partial_fit(X[start:start + 100].toarray(), y[start:start + 100])
    np.testing.assert_allclose(model.coef_, dense.coef_, rtol=1e-10, atol=1e-14)


def test_bad_sparse_input_is_refused_by_name(sparse_data):
    X, y = sparse_data
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        TopRanker().fit(bad, y)
    with pytest.raises(ValueError, match="X holds complex"):
        TopRanker().fit(X.astype(np.complex128), y)
    with pytest.raises(ValueError, match="X is empty"):
        TopRanker().fit(sp.csr_matrix((0, 3)), [])
    with pytest.raises(TypeError, match="sparse"):
        TopRanker(kernel="precomputed").fit(sp.identity(400, format="csr"), y)
    with pytest.raises(TypeError, match="sparse"):
        AATP().fit(X, y)
    model = TopRanker("prec@k-avg", k=0.25).fit(X, y)
    with pytest.raises(ValueError, match="X has 10 features, but TopRanker is expecting"):
        model.decision_function(X[:, :10])


def test_svmlight_stays_sparse_through_fit_from_file(tmp_path, sparse_data):
    X, y = sparse_data
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path))
    data = read_labeled_features(path)
    assert sp.issparse(data.X) and data.X.format == "csr"
    report = fit_from_file(str(path), k=0.25, model_path=str(tmp_path / "m.json"))
    direct = TopRanker("prec@k-avg", k=0.25).fit(X, y)
    assert report["training"]["objective"] == pytest.approx(direct.objective_, rel=3e-6)
    with pytest.raises(ValueError, match="standardize needs dense features"):
        fit_from_file(str(path), standardize=True)


def test_make_sparse_ranking_data_memory_follows_the_entries():
    from cvxtop.datasets import make_sparse_ranking_data

    X, y = make_sparse_ranking_data(20_000, 1_000_000, density=1e-4, random_state=3)
    assert sp.issparse(X) and X.format == "csr" and X.shape == (20_000, 1_000_000)
    assert abs(X.nnz - 2_000_000) < 2_000  # duplicates are rare and summed
    assert y.sum() == 2_000 and set(np.unique(y)) == {0, 1}
    X2, y2 = make_sparse_ranking_data(20_000, 1_000_000, density=1e-4, random_state=3)
    assert (X2 != X).nnz == 0 and np.array_equal(y, y2)
    with pytest.raises(ValueError, match="density"):
        make_sparse_ranking_data(10, 10, density=0.0)


def test_make_sparse_ranking_data_breaks_tied_scores_by_index():
    """Without noise, rows with no stored entry all score 0; where the labels' cut falls
    among them, the relevant ones are those of the smallest indices, on every CPU (numpy's
    default sort orders ties by the CPU's SIMD)."""
    from cvxtop.datasets import make_sparse_ranking_data

    X, y = make_sparse_ranking_data(20_000, 20, density=0.03, pos_rate=0.5, noise=0.0,
                                    random_state=3)
    tied = y[np.diff(X.indptr) == 0]
    assert 0 < tied.sum() < len(tied)  # the cut falls among the tied rows
    assert np.all(np.diff(tied) <= 0)  # relevant first, by index
