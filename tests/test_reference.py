"""The brute-force reference against the closed forms of docs/prec-at-k.md and pap-at-k.md, the
papers' examples and the checked facts. The closed forms here are written independently of cvxtop's
fast code."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cvxtop import reference as ref
from conftest import tiny_instance


def sum_largest(v, m):
    return float(sum(sorted(v, reverse=True)[:m])) if m > 0 else 0.0


def hinge(x):
    return max(x, 0.0)


# ---- closed forms of prec@k (docs/prec-at-k.md) --------------------------------------

def cf_prec_struct(y, s, k):
    return sum_largest(s + (1 - y), k) - float(y @ s)


def cf_prec_ramp(y, s, k):
    return sum_largest(s + (1 - y), k) - sum_largest(s[y == 1], k)


def cf_prec_max(y, s, k):
    pos, neg = s[y == 1], s[y == 0]
    return max(sum_largest(neg + 1, j) + sum_largest(-pos, j) for j in range(min(k, len(neg)) + 1))


def cf_prec_avg(y, s, k):
    pos, neg = s[y == 1], s[y == 0]
    n_pos = len(pos)
    best = -np.inf
    for kp in range(k + 1):
        if k - kp > len(neg):
            continue
        tail = 0.0 if kp == n_pos else (k - kp) / (n_pos - kp) * (sum_largest(pos, kp) - pos.sum())
        best = max(best, sum_largest(neg + 1, k - kp) + tail)
    return best


# ---- closed forms of pAp@k (docs/pap-at-k.md) -------------------------------------------

def cf_pap(y, s, k, which):
    pos = np.sort(s[y == 1])[::-1]
    neg = np.sort(s[y == 0])[::-1][:k]
    beta = min(len(pos), k)
    if which == "avg":
        return sum(hinge(1 + z - pos.mean()) for z in neg) / k
    if which == "ramp":
        rows = pos[:beta]
    elif which == "max":
        rows = pos[len(pos) - beta:]
    elif which == "pauc":
        return sum(hinge(1 + z - p) for p in pos for z in neg) / (len(pos) * k)
    elif which == "ts":
        best = -np.inf
        for t in range(k + 1):
            val = (beta - len(pos)) * t + sum(
                sum(hinge(1 + neg[j] - p) for j in range(t))
                + sum(hinge(neg[j] - p) for j in range(t, k)) for p in pos)
            best = max(best, val)
        return best / (beta * k)
    return sum(hinge(1 + z - p) for p in rows for z in neg) / (beta * k)


PREC = [(ref.prec_struct, cf_prec_struct), (ref.prec_ramp, cf_prec_ramp),
        (ref.prec_max, cf_prec_max), (ref.prec_avg, cf_prec_avg)]
PAP = [(ref.pap_avg, "avg"), (ref.pap_max, "max"), (ref.pap_ramp, "ramp"),
       (ref.pap_ts, "ts"), (ref.pauc_struct, "pauc")]


@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (2, 2), (3, 2), (2, 3), (3, 3)])
def test_valid_orderings_are_exactly_those_of_total_orders(shape):
    a = ref.valid_orderings(*shape)
    b = ref.valid_orderings_by_permutation(*shape)
    assert np.array_equal(a, b)


def test_valid_orderings_exclude_an_impossible_matrix():
    # positive 0 below negative 0 only, positive 1 below negative 1 only: needs n0 > p0 > ...
    # and n1 > p1 with p0 above n1 and p1 above n0, i.e. n0 > p0 > n1 > p1 > n0: a cycle.
    impossible = np.array([[1, 0], [0, 1]], dtype=np.int8)
    assert not any(np.array_equal(impossible, m) for m in ref.valid_orderings(2, 2))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("brute, closed", PREC, ids=["struct", "ramp", "max", "avg"])
def test_prec_reference_matches_closed_forms(rng, brute, closed, ties):
    for _ in range(60):
        y, s = tiny_instance(rng, max_pos=5, max_neg=4, ties=ties)
        for k in range(1, int(y.sum()) + 1):
            assert brute(y, s, k) == pytest.approx(closed(y, s, k), abs=1e-9)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("brute, which", PAP, ids=[w for _, w in PAP])
def test_pap_reference_matches_closed_forms(rng, brute, which, ties):
    for _ in range(40):
        y, s = tiny_instance(rng, max_pos=4, max_neg=4, ties=ties)
        for k in range(1, min(3, int((y == 0).sum())) + 1):
            assert brute(y, s, k) == pytest.approx(cf_pap(y, s, k, which), abs=1e-9)


def test_pap_risk_equals_theorem_1_max_min_of_auc_risk(rng):
    """Hiranandani et al. 2020 Theorem 1 / eq. (5)."""
    for _ in range(100):
        y, s = tiny_instance(rng, ties=True)
        pos, neg = s[y == 1], s[y == 0]
        for k in range(1, len(neg) + 1):
            beta = min(len(pos), k)
            value = max(
                min(np.mean([p <= z for p in pos[list(zp)] for z in neg[list(zn)]])
                    for zp in itertools.combinations(range(len(pos)), beta))
                for zn in itertools.combinations(range(len(neg)), k))
            assert ref.pap_risk(y, s, k) == pytest.approx(value)


def test_prec_surrogates_bound_the_loss_in_order(rng):
    """Kar et al. 2015 Section 3: ramp, avg and max upper-bound prec@k and ramp <= avg <= max."""
    for _ in range(150):
        y, s = tiny_instance(rng, ties=bool(rng.integers(2)))
        for k in range(1, int(y.sum()) + 1):
            loss = ref.prec_at_k_loss(y, s, k)
            ramp, avg, mx = ref.prec_ramp(y, s, k), ref.prec_avg(y, s, k), ref.prec_max(y, s, k)
            assert loss <= ramp + 1e-9 <= avg + 2e-9 <= mx + 3e-9


def test_prec_avg_equals_struct_at_prbep(rng):
    """Kar et al. 2015 Section 3.4: for k = n₊ the avg surrogate is Joachims' struct surrogate."""
    for _ in range(100):
        y, s = tiny_instance(rng, ties=True)
        k = int(y.sum())
        assert ref.prec_avg(y, s, k) == pytest.approx(ref.prec_struct(y, s, k))


def test_struct_is_not_an_upper_bound_appendix_a():
    """Kar et al. 2015, Appendix A: six points in one dimension, k = 1. With w < 0 prec@1 loss is 1,
    but the struct surrogate is 1 - |w| (and goes to -inf)."""
    x = np.array([-1.0, -1.0, -2.0, -3.0, -3.0, -3.0])
    y = np.array([1, 1, 1, 0, 0, 0])
    for w in (-0.5, -2.0, -10.0):
        s = w * x
        assert ref.prec_at_k_loss(y, s, 1) == 1
        assert ref.prec_struct(y, s, 1) == pytest.approx(1 + w)
    assert ref.prec_struct(y, -10.0 * x, 1) < 0


def test_pap_findings_of_math_md():
    # avg is not an upper bound (contrary to Hiranandani et al. 2020 Prop. 3)
    y, s = [1, 1, 1, 0, 0], [10.0, -1.0, -1.0, 0.0, 0.0]
    assert ref.pap_risk(y, s, 2) == 0.5
    assert ref.pap_avg(y, s, 2) == 0.0
    # ramp <= TS fails (contrary to Hiranandani et al. 2020 Prop. 5)
    y, s = [1, 1, 0, 0, 0], [1.3459, 1.5139, 0.7813, -0.3139, 0.2645]
    assert ref.pap_ramp(y, s, 1) == pytest.approx(0.2674)
    assert ref.pap_ts(y, s, 1) == 0.0
    assert ref.pap_risk(y, s, 1) == 0.0
    # the TS example where Algorithm 2's value (2.35) differs from eq. (14)
    y, s = [1, 1, 1, 1, 0, 0], [1.2, -0.4, -0.4, -2.1, 1.0, -0.9]
    assert ref.pap_ts(y, s, 2) == pytest.approx(2.225)
    assert ref.pap_risk(y, s, 2) == pytest.approx(0.25)


def test_pap_bounds_that_hold(rng):
    for _ in range(150):
        y, s = tiny_instance(rng, max_pos=4, max_neg=4, ties=bool(rng.integers(2)))
        for k in range(1, min(3, int((y == 0).sum())) + 1):
            risk = ref.pap_risk(y, s, k)
            ts, mx, avg = ref.pap_ts(y, s, k), ref.pap_max(y, s, k), ref.pap_avg(y, s, k)
            pauc, ramp = ref.pauc_struct(y, s, k), ref.pap_ramp(y, s, k)
            assert risk <= ts + 1e-9 and risk <= mx + 1e-9 and risk <= pauc + 1e-9
            assert risk <= ramp + 1e-9
            assert avg <= mx + 1e-9 and avg <= pauc + 1e-9


def test_too_large_instances_are_refused():
    y = np.r_[np.ones(12), np.zeros(12)]
    s = np.arange(24.0)
    with pytest.raises(ValueError, match="instance too large for brute-force"):
        ref.pap_ts(y, s, 8)
    with pytest.raises(ValueError, match="instance too large for brute-force"):
        ref.prec_avg(np.r_[np.ones(20), np.zeros(20)], np.arange(40.0), 12)


@pytest.mark.parametrize("name", ["pap_risk", "pap_ts_paper"])
def test_top_set_enumerations_refuse_large_instances_before_starting(name):
    """Found by tests/test_reliability.py: these two enumerated the top-β and top-k sets
    without a size check, and ran on without end for 40 + 40 items."""
    y = np.r_[np.ones(40, int), np.zeros(40, int)]
    with pytest.raises(ValueError, match="too large for brute-force enumeration"):
        getattr(ref, name)(y, np.arange(80.0), 20)
