"""The New-run screen: the screen and its forms, and the plan it shows."""
