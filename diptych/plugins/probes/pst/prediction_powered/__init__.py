"""A pst run's figures prediction-powered, and two runs compared the same way."""
