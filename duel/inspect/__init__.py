"""duel as Inspect evaluations (docs/inspect.md): the tasks ``duel/match`` (whole games against
an opponent spec or the ``opponent`` model role) and ``duel/positions`` (a position suite),
registered through Inspect's package entry point (duel.inspect._registry). Needs the
``inspect`` extra: ``pip install 'duel[inspect]'``; importing this package alone loads nothing
of Inspect's."""
