"""Grading prompt variants and harness settings: on the same deals from both seats (plan.py,
play.py, stopping.py, report.py, with quality.py, sequential.py, plots.py and variants.py) or on
the positions of a suite (positions/)."""
