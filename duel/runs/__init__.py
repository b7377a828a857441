"""Many games: seat-swapped tournaments, the MCTS ladder, Bradley-Terry ratings, and what every
many-games command shares (campaign.py: resume, budget, progress with money, local processes or
a Ray cluster, graceful stop)."""
