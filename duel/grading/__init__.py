"""Grading prompt variants and harness settings: on the same deals from both seats (games.py,
quality.py, sequential.py, plots.py) or on the positions of a suite (positions/)."""
