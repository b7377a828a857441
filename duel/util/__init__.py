"""Small utilities written once: files (atomic writes, JSON lines), net (a free port, waiting
for a server), tables (markdown and CSV), parallel (a map with progress), numbers (ASCII,
bounded), orphans (processes that die with their parent)."""
