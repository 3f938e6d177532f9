"""A sweep's figures without Dask (issue #28): the calibrated-sigma contour map from records,
read back from the SVG; cells not certified are marked, the caption says what is certified."""
from __future__ import annotations

import re

from verifier.sweep import outputs as O
from verifier.sweep import spec as S
from verifier.sweep.cells import text_of


def _records(sp, value):
    out = []
    for c in sp.cells():
        v = value(c)
        out.append({"inputs": {k: text_of(x) for k, x in c.items()},
                    "calibrated_sigma_lower": v, "calibrated_sigma_upper": v,
                    "status": "certified" if v else "inconclusive", "seconds": 1.0,
                    "reason": ""})
    return out


def test_the_calibrated_sigma_contour_map():
    sp = S.parse({"compute": "calibrated_sigma",
                  "axes": {"target_epsilon": ["0.5", "1", "2", "4"], "steps": [10, 100, 1000],
                           "delta": ["1e-5"]}})
    # a made-up surface, sigma ~ 1 / (eps * steps^0.2), one cell not certified
    recs = _records(sp, lambda c: None if (c["steps"], c["target_epsilon"]) == (1000, 4) else
                    f"{2.0 / (float(c['target_epsilon']) * c['steps'] ** 0.2):.4g}")
    figs = O.contours(sp, recs)
    assert list(figs) == ["contour-delta-0.00001.svg"]
    svg = figs["contour-delta-0.00001.svg"]
    assert "certified noise multiplier at delta = 0.00001" in svg
    assert ">target_epsilon<" in svg and ">steps<" in svg
    assert "lines interpolate between them (drawn, not certified)" in svg
    assert ">2.524<" in svg                       # 2 / (0.5 * 10^0.2), the cell's own value
    labels = [float(t) for t in re.findall(r">([0-9.]+)<", svg)]
    assert labels                                  # contour labels and cell values printed
    # the heatmap of the same records marks the uncertified cell with x
    assert ">x<" in O.heatmaps(sp, recs)["heatmap-delta-0.00001.svg"]
    assert O.contours(S.parse({"compute": "epsilon", "axes": {"sigma": ["1", "2"],
                                                              "steps": [10, 20],
                                                              "delta": ["1e-5"]}}), []) == {}


def test_contours_are_byte_reproducible():
    sp = S.parse({"compute": "calibrated_sigma",
                  "axes": {"target_epsilon": ["1", "2"], "steps": [10, 100],
                           "delta": ["1e-5"]}})
    recs = _records(sp, lambda c: f"{1.0 / float(c['target_epsilon']) + 1 / c['steps']:.4g}")
    assert O.contours(sp, recs) == O.contours(sp, recs)
