"""What the harness settings (duel.prompts.harness) change in one decision of the LLM seat: the
turn message, the reply schema and reading the reply (turn.py), what the seat keeps from turn to
turn (memory.py), the invented names of `names=renamed` (renaming.py) and the board drawn for
`image=on` (board_image.py)."""
