"""Validity of counterfactual retrieval's intervals and nulls."""
