"""Inspect's entry point (pyproject: [project.entry-points.inspect_ai] duel = ...): importing it
registers the tasks as duel/match and duel/positions."""

from duel.inspect.match import match
from duel.inspect.positions import positions

__all__ = ["match", "positions"]
