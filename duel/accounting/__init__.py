"""What LLM calls cost and count, read by the seat that makes them and by every report after:
the call record (calls.py), one seat's totals and their sums (totals.py), a game's totals from
its moves' details (games.py), the price table (prices.py), the projection of games not yet
played (projection.py) and the counting of a call's input tokens before it is sent
(counting.py).

It sits beside the agents (the LLM seat writes its call records and prices them as it plays) and
below the records and runs, which read it; it reads the model table's list prices
(duel.agents.llm.models) and the tool-call record, never the providers, their SDKs or the
transport (tests/test_imports.py holds it so). Nothing is imported here, so that one module
loads without the rest."""
