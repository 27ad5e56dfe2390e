"""The mitigation search: its prompts, power, behavioural screen and outcomes."""
