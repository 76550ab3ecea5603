#!/usr/bin/env python3
"""Writes the reference values the statistics tests compare with (Tests/LoadKitTests/Fixtures/
reference/stats.csv), computed by scipy, independently of the Swift code they check:

Columns: kind, name, n, x, expected, expected_high, values.

  ks_statistic   name, n, expected = D: scipy.stats.kstest(values, "uniform").statistic (the
                 sample in `values`, space-separated)
  ks_asymptotic  x = alpha, expected = scipy.stats.kstwobign.ppf(1 - alpha): the limit of
                 sqrt(n) times D's critical value
  ks_critical    n, x = alpha, expected = scipy.stats.kstwo.ppf(1 - alpha, n): D's exact critical
                 value
  ks_pvalue      n, x = d, expected = scipy.stats.kstwo.sf(d, n): the exact p-value of D = d
  wilson         n = trials, x = successes, expected and expected_high: the 95 % Wilson interval,
                 scipy.stats.binomtest(successes, trials).proportion_ci(0.95, "wilson")

Run it again (python3 scripts/reference-constants.py) after changing what it computes; the file
records the scipy version that made it.
"""
import csv
import math
import os
import random
import sys

import scipy
from scipy import stats

out = os.path.join(os.path.dirname(__file__), "..", "Tests", "LoadKitTests", "Fixtures", "reference", "stats.csv")
rows = []

# Samples: uniform ones of several sizes, and ones that are not uniform.
rng = random.Random(20261203)
samples = []
for n in (1, 2, 10, 37, 200, 1000):
    samples.append((f"uniform_{n}", [round(rng.random(), 12) for _ in range(n)]))
samples.append(("squared_200", [round(rng.random() ** 2, 12) for _ in range(200)]))
samples.append(("half_100", [round(0.5 + rng.random() / 2, 12) for _ in range(100)]))
samples.append(("ties_50", [round(rng.randrange(5) / 5, 12) for _ in range(50)]))
samples.append(("edges_4", [0.0, 0.0, 1.0 - 1e-12, 0.5]))
for name, values in samples:
    d = stats.kstest(values, "uniform").statistic
    rows.append(["ks_statistic", name, len(values), "", repr(float(d)), "", " ".join(repr(v) for v in values)])

for alpha in (0.10, 0.05, 0.01, 0.001):
    rows.append(["ks_asymptotic", "", "", repr(alpha), repr(float(stats.kstwobign.ppf(1 - alpha))), "", ""])

for n in (5, 10, 20, 50, 100, 200, 500, 1000, 5000, 20000):
    for alpha in (0.10, 0.05, 0.01, 0.001):
        rows.append(["ks_critical", "", n, repr(alpha), repr(float(stats.kstwo.ppf(1 - alpha, n))), "", ""])

for n in (20, 50, 100, 1000, 5000):
    for q in (0.5, 0.9, 0.95, 0.99, 0.999):
        d = float(stats.kstwo.ppf(q, n))
        rows.append(["ks_pvalue", "", n, repr(d), repr(float(stats.kstwo.sf(d, n))), "", ""])

for successes, trials in ((0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (950, 1000), (9990, 10000), (50, 100),
                          (1, 1000000), (123456, 200000)):
    ci = stats.binomtest(successes, trials).proportion_ci(0.95, "wilson")
    rows.append(["wilson", "", trials, repr(successes), repr(float(ci.low)), repr(float(ci.high)), ""])

with open(out, "w", newline="") as f:
    f.write(f"# made by scripts/reference-constants.py with scipy {scipy.__version__}, python {sys.version.split()[0]}\n")
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["kind", "name", "n", "x", "expected", "expected_high", "values"])
    writer.writerows(rows)
print(f"wrote {len(rows)} rows to {os.path.normpath(out)}")
