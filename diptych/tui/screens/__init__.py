"""The app's screens: a module and its ``.tcss`` file each, or a package for a screen of a
few modules (``agent``, ``new_run``, ``runs``)."""
