"""Counterfactual retrieval: its metrics, intervals, nulls, records and CSV."""
