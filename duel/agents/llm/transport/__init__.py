"""How one request of the LLM seat reaches its provider: the one transport that sends it,
retries it, adapts it and regrows its output budget (send.py), the settings it is sent with and
their adaptation to what a model refuses (adapt.py), the output budgets a model was found to
need (budgets.py), the cluster-wide rate limit (limits.py), the most one decision may send
(request_budget.py) and long calls streamed (streaming.py)."""
