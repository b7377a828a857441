"""The games the server holds: the manager (the routes' one entry), a game in play and how a
stored one comes back, seating and tokens, moves, the turns nobody sends over HTTP, past views
for event streams, the transcript export, the sealed notes, and the leases of several servers on
one database."""
