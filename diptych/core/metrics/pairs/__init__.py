"""PAIRS: the association score of closed answers, and the words of open ones."""
