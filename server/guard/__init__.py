"""What stands between the network and the games: connection timeouts and uvicorn's settings,
the Host names the server answers to, the rate limit's token buckets, each address's share of
what the server holds, the middlewares that refuse a request before a route sees it, and the log
filter that hides tokens."""
