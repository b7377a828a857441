"""The agents' work: the catalogue of agents on offer, how a decision runs within its deadline
(thinking), the worker processes of searches (pool), the caps on concurrent work, the search
budget a spec may ask for, and what callers never see of an operator's agent (privacy)."""
