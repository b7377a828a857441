"""`python -m duel.cli ...`, as the `duel` command."""

import sys

from duel.cli.main import main

sys.exit(main())
