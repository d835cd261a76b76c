"""cvxtop.report.pyplot: matplotlib on the Agg backend, or an ImportError naming the extra."""

from __future__ import annotations

import sys

import pytest

from cvxtop.report import pyplot


def test_pyplot_uses_the_agg_backend():
    plt = pyplot()
    import matplotlib

    assert matplotlib.get_backend().lower() == "agg"
    fig, _ = plt.subplots()
    plt.close(fig)


def test_pyplot_without_matplotlib_names_the_plot_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    with pytest.raises(ImportError, match=r"cvxtop\[plot\]"):
        pyplot()
