"""The app's screens, one module and one ``.tcss`` file each."""
