"""The servers an LLM seat may talk to besides the hosted APIs: which OpenAI-compatible server
answers a `llm:compat` endpoint and what it enforces (compat.py, its table kinds.py), and the
shipped local model: its server process (local.py, xserver.py) and where its weights come from
(model_source.py)."""
