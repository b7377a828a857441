"""Benchmarks (`duel bench WHAT`): figures for closing notes, never timed tests."""
