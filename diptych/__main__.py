"""``python -m diptych``: the ``diptych`` command, for an environment whose scripts are not on
PATH."""

from diptych.cli.main import main

if __name__ == "__main__":
    main()
