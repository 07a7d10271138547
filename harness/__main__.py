import sys

from webnn_harness.cli import main

sys.exit(main())
