"""The command line's commands, one module each (harness/cli.py keeps the table
of them and main()): each declares ``HELP``, ``add_arguments(parser)`` and
``handle(args) -> exit code``, and imports its stage inside ``handle`` so that
``webnn-harness --help`` and ``run``'s fork server start light. The option
groups they share are declared once, in ``common``."""
