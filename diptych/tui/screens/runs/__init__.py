"""The Runs screen and the run's own: its rows and keys, the run's detail and its report's
folder."""
