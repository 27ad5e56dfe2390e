"""The Agent screen: its form and table, the session's worker and the confirmation."""
